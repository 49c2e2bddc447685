#pragma once
// The time step's CFL limit (eq. 8, sec. 5.2.2), in the same pass that completes the
// neighbour table after growth: one kernel, one read of each key.
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/grid.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace pk::gbees::Details {

// Min over cells of 1 / sum_j |f_j| / h_j (parallel_reduce with Kokkos::Min; the step is
// epsilon times it). Slots below first_new keep the neighbours they had and look up only
// their missing ones; the cells growth added look up all of theirs.
template <class Model, class Grid>
struct NeighboursAndCfl {
  Model model;
  Geometry g;
  typename Grid::Map map;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  typename Grid::NeighbourView neighbour;
  std::int32_t first_new;

  KOKKOS_INLINE_FUNCTION void operator()(const int c, double& smallest) const {
    const std::uint64_t k = key(c);
    find_neighbours(map, g.codec, neighbour, c, k, c < first_new);
    double ix[max_dimension];
    cell_index(g, k, ix);
    double rate = 0;
    for (int j = 0; j < g.n; ++j) rate += ::fabs(face_velocity(model, g, ix, j)) / g.h[j];
    if (rate > 0 && 1.0 / rate < smallest) smallest = 1.0 / rate;
  }
};

}  // namespace pk::gbees::Details
