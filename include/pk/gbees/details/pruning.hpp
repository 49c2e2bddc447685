#pragma once
// The mark of pruning (Algorithm 3): which cells survive the next compaction
// (SparseGrid::compact moves them to the front and rebuilds the map).
#include <pk/gbees/details/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// keep(c) = 1 for a cell at or above p*, or for one below p* that a neighbour feeds (see
// feeds): probability above p* is about to flow into it, so removing it would lose that.
template <class Grid>
struct PruneMark {
  int n;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  typename Grid::NeighbourView neighbour;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> keep;

  // Does cell q (with its neighbours) send probability across axis i in direction dir?
  // q itself above threshold with f_i pointing that way, or a diagonal neighbour of q above
  // threshold whose velocities carry it through q's face (sec. 3.3, Fig. 3).
  KOKKOS_INLINE_FUNCTION bool feeds(std::int32_t q, int i, int dir) const {
    const int mq = direction(q);
    if ((mq & direction_above) && flows(mq, i, dir)) return true;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const std::int32_t back = neighbour(q, j);
      if (back >= 0) {
        const int m = direction(back);
        if ((m & direction_above) && flows(m, i, dir) && flows(m, j, 1)) return true;
      }
      const std::int32_t front = neighbour(q, n + j);
      if (front >= 0) {
        const int m = direction(front);
        if ((m & direction_above) && flows(m, i, dir) && flows(m, j, -1)) return true;
      }
    }
    return false;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    int k = 1;
    if (!(direction(c) & direction_above)) {
      k = 0;
      for (int i = 0; i < n && !k; ++i) {
        const std::int32_t back = neighbour(c, i), front = neighbour(c, n + i);
        if ((back >= 0 && feeds(back, i, 1)) || (front >= 0 && feeds(front, i, -1))) k = 1;
      }
    }
    keep(c) = k;
  }
};

}  // namespace pk::gbees::Details
