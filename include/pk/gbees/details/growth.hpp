#pragma once
// Directional growth of the sparse grid (sec. 3.3, 4.4.1): each cell at or above p* gets a
// cell beyond every face its probability flows through, so that no probability above p*
// leaves the grid.
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/details/key.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace pk::gbees::Details {

// One kernel over (cell, axis d) pairs, in the neighbour table's order: the cell beyond c's
// face on axis d in the direction f_d flows (stages 0 and 1 of the paper's six), and the
// diagonal cells one step that way on d and one step on another axis j the way f_j flows
// (stages 2..5). Splitting a cell's work by axis keeps the slowest thread short: a cell on the
// grid's edge may insert a dozen cells, and each insert waits on memory fences and atomics.
// The stages need no barrier between them: they read only the direction masks and the
// neighbour table, which growth does not change, and an insert of a key that is there
// already finds it. Only cells at or above p* grow (their direction masks say so and which
// way their faces flow), and only those that existed when the step began (new cells have no
// mask yet). A neighbour beyond the key's range sets out_of_range (the host reports it:
// device code cannot throw).
template <class Inserter, class Grid>
struct GrowCells {
  KeyCodec codec;
  Slab slab;  // a rank inserts only the cells it holds
  Inserter insert;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  typename Grid::NeighbourView neighbour;
  Kokkos::View<int, typename Grid::memory_space> out_of_range;
  Kokkos::View<const StepClock, typename Grid::memory_space> clock;
  LiveCells<typename Grid::memory_space> live;
  int extent;  // slots per axis

  // Items follow the neighbour table's order: a column-major table (a GPU's) is read along
  // the cells of one axis, a row-major one (host cores) along one cell's axes.
  static constexpr bool by_cell = std::is_same_v<typename Grid::NeighbourView::array_layout, Kokkos::LayoutRight>;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t item) const {  // slots x axes can pass 2^31
    const int n = codec.n;
    const int c = static_cast<int>(by_cell ? item / n : item % extent);
    const int d = static_cast<int>(by_cell ? item % n : item / extent);
    // The count the step began with, not the live count: inserts raise that one atomically,
    // and host threads reading it for every item would contend for its cache line.
    if (c >= clock().first_new || !live.running()) return;
    const int mask = direction(c);
    if (!(mask & direction_above)) return;
    const int dir_d = flow_direction(mask, d);
    if (dir_d == 0) return;
    const std::uint64_t k = key(c);
    const std::int32_t via = neighbour(c, (dir_d > 0 ? n : 0) + d);
    std::uint64_t a;
    if (!codec.shift(k, d, dir_d, a)) {
      out_of_range() = 1;
      return;
    }
    if (via < 0 && slab.holds(codec, a)) insert(a);
    for (int j = 0; j < n; ++j) {
      const int dir_j = flow_direction(mask, j);
      if (j == d || dir_j == 0) continue;
      // Known through the neighbour table already? Then no insert is tried.
      if (via >= 0 && neighbour(via, (dir_j > 0 ? n : 0) + j) >= 0) continue;
      std::uint64_t b;
      if (codec.shift(a, j, dir_j, b)) {
        if (slab.holds(codec, b)) insert(b);
      } else {
        out_of_range() = 1;
      }
    }
  }
};

}  // namespace pk::gbees::Details
