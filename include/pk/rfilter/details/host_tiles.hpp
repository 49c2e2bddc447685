#pragma once
// CPU threads: a work item filters host_tiles_per_item tiles of host_tile_lines lines (the SIMD
// lanes of a few registers: launch_parameters.hpp) in turn. It stages each in its level-1
// scratch as tile(j, l) at j * host_tile_lines + l and filters the lines in lockstep, vectorised
// across lines (filter_lines_lockstep); while that tile's sweeps run in cache, it asks memory
// for the next tile's entries where they lie side by side (NextRows), which the sweeps would
// otherwise leave idle. Plain loops copy the tile: lines side by side in memory (an axis other
// than the contiguous one) copy as one contiguous run per entry j; lines along the contiguous
// axis a cache line (8 entries) of each at a time, so that the 8 tile rows it fills stay in
// level-1 cache while every line of the tile passes (line by line, a line's entries go to as
// many rows, which do not stay: docs/rfilter.md), in a whole tile as 8 x 8 blocks transposed
// in registers (pk::transpose_8x8) rather than a double at a time; others line by line.
#include <pk/core/prefetch.hpp>
#include <pk/core/transpose.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/launch_parameters.hpp>
#include <pk/rfilter/details/line_recurrence.hpp>
#include <pk/rfilter/details/lines.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace pk::rfilter::Details {

// Where a tile's lines lie: `count` lines from line `first`, entry 0 of the first at `start`;
// side by side when they are consecutive in memory (not along the contiguous axis).
struct TilePlace {
  long first = 0, start = 0;
  int count = 0;
  bool side_by_side = false;

  KOKKOS_DEFAULTED_FUNCTION TilePlace() = default;
  template <class Geometry>
  KOKKOS_INLINE_FUNCTION TilePlace(const Geometry& g, long first_, int tile) : first(first_), start(g.offset(first_)) {
    count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
    side_by_side = !g.axis_is_contiguous && g.offset(first + count - 1) - start == count - 1;
  }
};

// Asks for the rows of a tile of side-by-side lines a few cache lines at each call, into the
// second-level cache: the level-1 cache holds the tile being filtered. Only such tiles: their
// rows of a few cache lines lie a whole plane or row of the field apart, where the hardware's
// prefetchers do not follow, whereas lines along the contiguous axis are streams they do
// (asked for as well, the x pass ran 0.88x on the H200 machine's Xeon: docs/rfilter.md).
class NextRows {
 public:
  KOKKOS_DEFAULTED_FUNCTION NextRows() = default;  // asks for nothing
  KOKKOS_INLINE_FUNCTION NextRows(const double* first_row, long row_step, int rows, int count, int calls)
      : next_(first_row), row_step_(row_step), rows_(rows), per_row_((count + 7) / 8) {
    const long lines = static_cast<long>(rows) * per_row_;
    per_call_ = calls > 0 ? static_cast<int>((lines + calls - 1) / calls) : 0;
  }
  KOKKOS_FORCEINLINE_FUNCTION void operator()() {
    for (int i = 0; i < per_call_ && row_ < rows_; ++i) {
      prefetch_ahead<false, 64, 2>(next_ + 8 * line_, 0);
      if (++line_ == per_row_) {
        line_ = 0;
        ++row_;
        next_ += row_step_;
      }
    }
  }

 private:
  const double* next_ = nullptr;
  long row_step_ = 0;
  int rows_ = 0, per_row_ = 0, per_call_ = 0, row_ = 0, line_ = 0;
};

template <class ExecutionSpace, class Field3>
void filter_lines_on_host(const ExecutionSpace& space, const Field3& field,
                          const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint) {
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int tile = host_tile_lines<ExecutionSpace>;
  const int n = g.length;
  const long tiles = (g.lines + tile - 1) / tile;
  const long items = (tiles + host_tiles_per_item - 1) / host_tiles_per_item;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const int sweep_steps = 2 * iterations * (n - 1);
  const long axis_step = g.axis_step;
  double* const data = field.data();
  const size_t entries = static_cast<size_t>(n) * tile;
  const Policy policy =
      Policy(space, static_cast<int>(items), 1).set_scratch_size(1, Kokkos::PerTeam(Scratch::shmem_size(entries)));
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_on_host", policy, KOKKOS_LAMBDA(const Member& team) {
        double* const t = Scratch(team.team_scratch(1), entries).data();
        // Applies move(field entry, tile entry) to every entry of the tile's lines; staging
        // (`fetch`), it first asks for the entries it will stage a few rows or lines further on.
        auto each_entry = [&](const TilePlace& p, auto&& move, auto fetch) {
          constexpr bool staging = decltype(fetch)::value;
          if (p.side_by_side) {
            for (int j = 0; j < n; ++j) {
              if (staging)
                prefetch_ahead<true, tile * sizeof(double)>(&data[p.start + j * axis_step],
                                                            host_prefetch_rows * axis_step * sizeof(double));
              for (int l = 0; l < p.count; ++l)
                move(data[p.start + j * axis_step + l], t[static_cast<size_t>(j) * tile + l]);
            }
          } else if (axis_step == 1) {
            long lines[tile];  // where each line starts, found once rather than once a block
            for (int l = 0; l < p.count; ++l) lines[l] = g.offset(p.first + l);
            for (int j0 = 0; j0 < n; j0 += 8) {
              const int j1 = j0 + 8 < n ? j0 + 8 : n;
              if (tile % 8 == 0 && p.count == tile && j1 - j0 == 8) {  // whole 8 x 8 blocks
                for (int l0 = 0; l0 < tile; l0 += 8) {
                  const double* from[8];
                  double* to[8];
                  for (int i = 0; i < 8; ++i) {
                    double* const line = data + lines[l0 + i] + j0;
                    double* const row = t + static_cast<size_t>(j0 + i) * tile + l0;
                    if (staging) prefetch_ahead<true, 64>(line, host_prefetch_bytes);
                    from[i] = staging ? line : row;
                    to[i] = staging ? row : line;
                  }
                  transpose_8x8(from, to);
                }
                continue;
              }
              for (int l = 0; l < p.count; ++l) {
                const long line = lines[l];
                if (staging) prefetch_ahead<true, 64>(&data[line + j0], host_prefetch_bytes);
                for (int j = j0; j < j1; ++j) move(data[line + j], t[static_cast<size_t>(j) * tile + l]);
              }
            }
          } else {
            for (int l = 0; l < p.count; ++l) {
              const long line = g.offset(p.first + l);
              for (int j = 0; j < n; ++j) move(data[line + j * axis_step], t[static_cast<size_t>(j) * tile + l]);
            }
          }
        };
        const long first_tile = static_cast<long>(team.league_rank()) * host_tiles_per_item;
        const long end_tile = first_tile + host_tiles_per_item < tiles ? first_tile + host_tiles_per_item : tiles;
        TilePlace here(g, first_tile * tile, tile);
        for (long k = first_tile; k < end_tile; ++k) {
          each_entry(
              here, [](const double& entry, double& staged) { staged = entry; }, std::true_type{});
          for (int j = 0; j < n; ++j)  // a partial tile's spare lines: zeros, never garbage or denormals
            for (int l = here.count; l < tile; ++l) t[static_cast<size_t>(j) * tile + l] = 0;
          const TilePlace next = k + 1 < end_tile ? TilePlace(g, (k + 1) * tile, tile) : TilePlace();
          NextRows ahead =
              next.side_by_side ? NextRows(data + next.start, axis_step, n, next.count, sweep_steps) : NextRows();
          filter_lines_lockstep<tile>(t, n, alpha, beta, iterations, adjoint, ahead);
          each_entry(
              here, [](double& entry, const double& staged) { entry = staged; }, std::false_type{});
          here = next;
        }
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
