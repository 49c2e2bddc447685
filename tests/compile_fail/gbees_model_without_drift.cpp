// A GBEES model that has a dimension but no drift.
#include <pk/gbees/solver.hpp>

struct NoDrift {
  KOKKOS_INLINE_FUNCTION int dimension() const { return 2; }
};

void make(const pk::gbees::Parameters& parameters) {
  pk::gbees::Solver<Kokkos::DefaultHostExecutionSpace, NoDrift> solver(Kokkos::DefaultHostExecutionSpace{}, NoDrift{},
                                                                       parameters);
}
