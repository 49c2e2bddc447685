#pragma once
// CPU threads: a work item stages a tile of host_tile_lines lines (the SIMD lanes of a few
// registers: launch_parameters.hpp) in its level-1 scratch as tile(j, l) at
// j * host_tile_lines + l and filters them in lockstep, vectorised across lines
// (filter_lines_lockstep). Plain loops copy the tile: lines side by side in memory (an axis
// other than the contiguous one) copy as one contiguous run per entry j; lines along the
// contiguous axis a cache line (8 entries) of each at a time, so that the 8 tile rows it
// fills stay in level-1 cache while every line of the tile passes (line by line, a line's
// entries go to as many rows, which do not stay: docs/rfilter.md); others line by line.
#include <pk/core/prefetch.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/launch_parameters.hpp>
#include <pk/rfilter/details/line_recurrence.hpp>
#include <pk/rfilter/details/lines.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace pk::rfilter::Details {

template <class ExecutionSpace, class Field3>
void filter_lines_on_host(const ExecutionSpace& space, const Field3& field,
                          const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int tile = host_tile_lines<ExecutionSpace>;
  const int n = g.length;
  const long teams = (g.lines + tile - 1) / tile;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const long axis_step = g.axis_step;
  double* const data = field.data();
  const size_t entries = static_cast<size_t>(n) * tile;
  const Policy policy =
      Policy(space, static_cast<int>(teams), 1).set_scratch_size(1, Kokkos::PerTeam(Scratch::shmem_size(entries)));
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_on_host", policy, KOKKOS_LAMBDA(const Member& team) {
        double* const t = Scratch(team.team_scratch(1), entries).data();
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        const long start = g.offset(first);
        const bool side_by_side = !g.axis_is_contiguous && g.offset(first + count - 1) - start == count - 1;
        // Applies move(field entry, tile entry) to every entry of the tile's lines; staging
        // (`fetch`), it first asks for the entries it will stage a few rows or lines further on.
        auto each_entry = [&](auto&& move, auto fetch) {
          constexpr bool staging = decltype(fetch)::value;
          if (side_by_side) {
            for (int j = 0; j < n; ++j) {
              if (staging)
                prefetch_ahead<true, tile * sizeof(double)>(&data[start + j * axis_step],
                                                            host_prefetch_rows * axis_step * sizeof(double));
              for (int l = 0; l < count; ++l)
                move(data[start + j * axis_step + l], t[static_cast<size_t>(j) * tile + l]);
            }
          } else if (axis_step == 1) {
            for (int j0 = 0; j0 < n; j0 += 8) {
              const int j1 = j0 + 8 < n ? j0 + 8 : n;
              for (int l = 0; l < count; ++l) {
                const long line = g.offset(first + l);
                if (staging) prefetch_ahead<true, 64>(&data[line + j0], host_prefetch_bytes);
                for (int j = j0; j < j1; ++j) move(data[line + j], t[static_cast<size_t>(j) * tile + l]);
              }
            }
          } else {
            for (int l = 0; l < count; ++l) {
              const long line = g.offset(first + l);
              for (int j = 0; j < n; ++j) move(data[line + j * axis_step], t[static_cast<size_t>(j) * tile + l]);
            }
          }
        };
        each_entry([](const double& entry, double& staged) { staged = entry; }, std::true_type{});
        for (int j = 0; j < n; ++j)  // a partial tile's spare lines: zeros, never garbage or denormals
          for (int l = count; l < tile; ++l) t[static_cast<size_t>(j) * tile + l] = 0;
        filter_lines_lockstep<tile>(t, n, alpha, beta, iterations, adjoint);
        each_entry([](double& entry, const double& staged) { entry = staged; }, std::false_type{});
      });
}

// Whether a host tile of lines of length n fits the level-1 scratch.
template <class ExecutionSpace>
bool fits_host_tile(const ExecutionSpace& space, int n) {
  const long budget =
      Kokkos::TeamPolicy<ExecutionSpace>(space, 1, 1).scratch_size_max(1) - 64;  // less shmem_size's padding
  return static_cast<long>(n) * host_tile_lines<ExecutionSpace> * static_cast<long>(sizeof(double)) <= budget;
}

}  // namespace pk::rfilter::Details
