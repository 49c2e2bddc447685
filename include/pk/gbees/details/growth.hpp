#pragma once
// Directional growth of the sparse grid (sec. 3.3, 4.4.1): each cell at or above p* gets a
// cell beyond every face its probability flows through, so that no probability above p*
// leaves the grid.
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/details/key.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// The stages run one after the other, each over the cells that existed when growth began;
// a stage inserts its cells before the next looks for them.
inline constexpr int grow_stages = 6;
inline constexpr const char* grow_stage_label[grow_stages] = {
    "pk::gbees::grow::forward",     "pk::gbees::grow::backward",    "pk::gbees::grow::diagonal_ff",
    "pk::gbees::grow::diagonal_fb", "pk::gbees::grow::diagonal_bf", "pk::gbees::grow::diagonal_bb"};

// One growth stage. Stage 0: forward along every axis with f_j > 0; 1: backward where
// f_j < 0; 2..5: the diagonal pairs (+,+), (+,-), (-,+), (-,-) of two axes d != j whose
// velocities point that way. Only cells at or above p* grow (their direction masks say so
// and which way their faces flow). A neighbour beyond the key's range sets out_of_range
// (the host reports it: device code cannot throw).
template <class Inserter, class Grid>
struct GrowStage {
  KeyCodec codec;
  Inserter insert;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  typename Grid::NeighbourView neighbour;
  Kokkos::View<int, typename Grid::memory_space> out_of_range;
  int stage;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    const int mask = direction(c);
    if (!(mask & direction_above)) return;
    const int n = codec.n;
    const std::uint64_t k = key(c);
    if (stage < 2) {
      const int dir = stage == 0 ? 1 : -1;
      for (int j = 0; j < n; ++j) {
        if (!flows(mask, j, dir)) continue;
        if (neighbour(c, (dir > 0 ? n : 0) + j) >= 0) continue;  // exists already
        std::uint64_t other;
        if (codec.shift(k, j, dir, other))
          insert(other);
        else
          out_of_range() = 1;
      }
    } else {
      const int dir_d = stage <= 3 ? 1 : -1;
      const int dir_j = (stage % 2 == 0) ? 1 : -1;
      for (int d = 0; d < n; ++d) {
        if (!flows(mask, d, dir_d)) continue;
        for (int j = 0; j < n; ++j) {
          if (j == d || !flows(mask, j, dir_j)) continue;
          // Known through the neighbour table already? Then no insert is tried.
          const std::int32_t via = neighbour(c, (dir_d > 0 ? n : 0) + d);
          if (via >= 0 && neighbour(via, (dir_j > 0 ? n : 0) + j) >= 0) continue;
          std::uint64_t a, b;
          if (codec.shift(k, d, dir_d, a) && codec.shift(a, j, dir_j, b))
            insert(b);
          else
            out_of_range() = 1;
        }
      }
    }
  }
};

}  // namespace pk::gbees::Details
