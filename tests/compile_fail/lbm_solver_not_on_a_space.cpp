// A solver templated on something that is not an execution space.
#include <pk/lbm/solver.hpp>

void make(const pk::lbm::Geometry& geometry) {
  pk::lbm::Solver<Kokkos::HostSpace> solver(Kokkos::HostSpace{}, geometry, {});
}
