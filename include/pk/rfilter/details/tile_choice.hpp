#pragma once
// How many lines a GPU team filters together: any tile that fits gives the same result (a tile
// only changes which threads filter which lines), but not the same speed, and the fastest
// differs between devices. pk::autotune times the tiles that fit once per device, kind of axis
// and line length, on a scratch field of the same shape as the caller's but at most a few
// times the GPU's cache, never on the caller's field.
#include <pk/core/tuning.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/launch_parameters.hpp>
#include <pk/rfilter/details/lines.hpp>
#include <pk/rfilter/details/register_tiles.hpp>
#include <pk/rfilter/details/staged_tiles.hpp>
#include <pk/rfilter/details/team_tiles.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace pk::rfilter::Details {

// The tiles that fit lines of length n, largest first (PK_AUTOTUNE=0 takes the first); none
// when even one line does not (filter_lines_in_place).
template <class ExecutionSpace>
std::vector<int> tile_candidates(const ExecutionSpace& space, int n, bool axis_is_contiguous) {
  std::vector<int> tiles;
  for (int tile = largest_tile_lines(space, n, axis_is_contiguous); tile >= 1; tile /= 2) tiles.push_back(tile);
  return tiles;
}

// A GPU team kernel with `tile` lines per team: staged along the contiguous axis, in
// registers along the others.
template <class ExecutionSpace, class Field3>
void filter_lines_in_teams(const ExecutionSpace& space, const Field3& field,
                           const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint,
                           int tile) {
  if (g.axis_is_contiguous)
    filter_lines_staged(space, field, g, c, adjoint, tile);
  else
    filter_lines_in_registers(space, field, g, c, adjoint, tile);
}

// One trial of a tile on a field shaped like the caller's (same layout, axis and line length,
// the same run of neighbouring lines) with at most four times the GPU's cache in it, so that
// it streams from memory as a large field does. Allocated at the first trial, freed with the
// trial.
template <class ExecutionSpace, class Layout>
struct TileTrial {
  using Field = Kokkos::View<double***, Layout, typename ExecutionSpace::memory_space>;
  ExecutionSpace space;
  LineGeometry<Layout> caller;
  Coefficients c;
  Field field;
  LineGeometry<Layout> g;

  // A pass over such a field is short enough that launching and waiting weigh on it: timed
  // one at a time, the trials picked the slower tile about one time in three (docs/rfilter.md).
  static constexpr int passes = 4;

  void operator()(int tile) {
    if (field.size() == 0) allocate();
    for (int pass = 0; pass < passes; ++pass) filter_lines_in_teams(space, field, g, c, false, tile);
  }

  void allocate() {
    const long cache_bytes = pk::device_facts(space).cache_bytes;
    const long entries = std::max(4 * cache_bytes, 1L << 24) / static_cast<long>(sizeof(double));
    const long lines = std::min(caller.lines, std::max(1L, entries / caller.length));
    const int fast = static_cast<int>(std::min<long>(caller.fast_extent, lines));
    int extents[3];
    extents[caller.axis] = caller.length;
    extents[caller.fast_axis] = fast;
    extents[caller.slow_axis] = static_cast<int>(lines / fast);
    field = Field(Kokkos::view_alloc(space, "pk::rfilter::tile_trial"), extents[0], extents[1], extents[2]);
    g = LineGeometry<Layout>(caller.axis, extents);
  }
};

// Lines per GPU team for the lines of g (0: they do not fit a team), timed once per device
// and key; later calls (every CG iteration) find the choice in pk::autotune's cache.
template <class ExecutionSpace, class Layout>
int team_tile_lines(const ExecutionSpace& space, const LineGeometry<Layout>& g, const Coefficients& c) {
  const std::vector<int> tiles = tile_candidates(space, g.length, g.axis_is_contiguous);
  if (tiles.size() <= 1) return tiles.empty() ? 0 : tiles.front();
  const std::string key = std::string("pk::rfilter::tile_lines/") + (g.axis_is_contiguous ? "contiguous" : "strided") +
                          "/n=" + std::to_string(g.length);
  return pk::autotune(space, key, tiles, TileTrial<ExecutionSpace, Layout>{space, g, c, {}, {}});
}

}  // namespace pk::rfilter::Details
