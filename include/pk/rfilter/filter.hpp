#pragma once
// The K-iterated Gaussian recursive filter (Algorithm 1) along one axis of a 1-D, 2-D or
// 3-D field, every line at once, in place. Where a tile of lines fits, every entry is read
// and written once whatever K is:
//  - on CPUs, tiles of lines in lockstep across the SIMD lanes (details/host_tiles.hpp);
//  - on GPUs, a team per tile and a thread per piece of a line (details/team_sweeps.hpp),
//    staged in scratch along the contiguous axis (details/staged_tiles.hpp) and held in
//    registers along the others (details/register_tiles.hpp), as many lines per team as
//    is fastest on the device (details/tile_choice.hpp).
// Longer lines run in place, one thread per line (details/in_place_lines.hpp); see
// chunked_filter.hpp for splitting long lines across threads.
#include <pk/core/checks.hpp>
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/host_tiles.hpp>
#include <pk/rfilter/details/in_place_lines.hpp>
#include <pk/rfilter/details/lines.hpp>
#include <pk/rfilter/details/tile_choice.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace pk::rfilter {

enum class Transpose { no, yes };  // the filter, or its adjoint (for B = V V^T)

// Applies the K-iterated recursive filter (or its transpose) in place along `axis` of
// `field` (rank 1-3, LayoutLeft or LayoutRight, contiguous, in ExecutionSpace's memory).
template <class ExecutionSpace, class View>
void apply_filter(const ExecutionSpace& space, const View& field, int axis, const Coefficients& c,
                  Transpose transpose = Transpose::no) {
  static_assert(check_arguments<ExecutionSpace, View>());
  require(axis >= 0 && axis < static_cast<int>(View::rank), "recursive filter: axis " + std::to_string(axis) +
                                                                " does not exist in a rank-" +
                                                                std::to_string(View::rank) + " field");
  require(c.iterations >= 1 && c.alpha > 0 && c.alpha < 1,
          "recursive filter: coefficients not set (use make_coefficients)");
  const auto field3 = Details::as_rank3(field);
  const auto geometry = Details::line_geometry(field3, axis);
  if (geometry.lines == 0 || geometry.length == 0) return;
  const bool adjoint = transpose == Transpose::yes;
  if constexpr (runs_on_host<ExecutionSpace>) {
    if (Details::fits_host_tile(space, geometry.length))
      Details::filter_lines_on_host(space, field3, geometry, c, adjoint);
    else
      Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
  } else {
    const int tile = Details::team_tile_lines(space, geometry, c);
    if (tile == 0)
      Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
    else
      Details::filter_lines_in_teams(space, field3, geometry, c, adjoint, tile);
  }
}

// Lines that apply_filter filters together along `axis` of `field` (a CPU thread's or a GPU
// team's tile; 0: one thread per line, in place). On a GPU the first call for a kind of axis
// and line length times the tiles that fit (pk::autotune), as apply_filter's would: call it
// before timing the filter.
template <class ExecutionSpace, class View>
int tile_lines(const ExecutionSpace& space, const View& field, int axis, const Coefficients& c) {
  static_assert(check_arguments<ExecutionSpace, View>());
  const auto field3 = Details::as_rank3(field);
  const auto geometry = Details::line_geometry(field3, axis);
  if (geometry.lines == 0 || geometry.length == 0) return 0;
  if constexpr (runs_on_host<ExecutionSpace>)
    return Details::fits_host_tile(space, geometry.length) ? Details::host_tile_lines<ExecutionSpace> : 0;
  else
    return Details::team_tile_lines(space, geometry, c);
}

// Applies the filter along every axis whose extent exceeds 1, with that axis' coefficients
// (a separable Gaussian). The transpose runs the axes in reverse order.
template <class ExecutionSpace, class View>
void apply_filter_all_axes(const ExecutionSpace& space, const View& field, const Coefficients (&per_axis)[View::rank],
                           Transpose transpose = Transpose::no) {
  static_assert(check_arguments<ExecutionSpace, View>());
  constexpr int rank = static_cast<int>(View::rank);
  for (int step = 0; step < rank; ++step) {
    const int axis = transpose == Transpose::no ? step : rank - 1 - step;
    if (field.extent(axis) > 1) apply_filter(space, field, axis, per_axis[axis], transpose);
  }
}

}  // namespace pk::rfilter
