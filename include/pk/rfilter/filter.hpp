#pragma once
// The K-iterated Gaussian recursive filter (Algorithm 1) along one axis of a 1-D, 2-D or
// 3-D field, every line at once, in place. Lines short enough to fit a team's scratch
// memory are filtered there (one global read and write per entry whatever K is); longer
// lines run in place in global memory, one thread per line (see chunked_filter.hpp for
// splitting long lines across threads).
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/line_recurrence.hpp>
#include <pk/rfilter/details/lines.hpp>
#include <pk/rfilter/details/team_sweeps.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace pk::rfilter {

enum class Transpose { no, yes };  // the filter, or its adjoint (for B = V V^T)

namespace Details {

template <class Field3>
KOKKOS_INLINE_FUNCTION double& at(const Field3& f, const int i[3]) {
  return f(i[0], i[1], i[2]);
}

template <class Line>
KOKKOS_INLINE_FUNCTION void run_line(const Line& line, int n, double alpha, double beta, int iterations,
                                     bool adjoint) {
  if (adjoint)
    filter_line_adjoint(line, n, alpha, beta, iterations);
  else
    filter_line(line, n, alpha, beta, iterations);
}

// Lines per team of the scratch kernel: a 16-wide tile is one 128-byte segment of doubles.
constexpr int max_tile_lines = 16;
// GPU teams: up to this many threads, one per piece of a line (TeamSweeps).
constexpr int max_team_threads = 256;
// Global <-> scratch copies: entries in flight per thread.
constexpr int copy_batch = 4;

template <class Space>
constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

// GPU team = a tile of up to `tile` lines, staged in scratch as tile(l, j) at j*(tile+1)+l:
// threads on consecutive lines read consecutive words, and the +1 keeps the load/store
// phase (consecutive j when lines are contiguous) free of bank conflicts.
template <class Space, class Field3>
void filter_lines_in_scratch(const Space& space, const Field3& field, const LineGeometry<typename Field3::array_layout>& g,
                             const Coefficients& c, bool adjoint, int tile) {
  // Two teams per SM allow 128 registers, so the 16 entries of each thread's piece stay in
  // registers. On the H100 (256^3, K = 4) pieces of 8 under a 64- or 80-register cap ran
  // 5-13 % slower.
  using Policy = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<max_team_threads, 2>>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Offsets = Kokkos::View<long*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Sweeps = TeamSweeps<Member, Scratch>;
  const int n = g.length, stride = tile + 1;
  const long teams = (g.lines + tile - 1) / tile;
  const int team_size = tile * Sweeps::pieces(n);
  const int ends_size = Sweeps::ends_size(n, tile);
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const size_t scratch_bytes = Scratch::shmem_size(static_cast<size_t>(n) * stride) +
                               Scratch::shmem_size(static_cast<size_t>(ends_size)) + Offsets::shmem_size(tile);
  const Policy policy =
      Policy(space, static_cast<int>(teams), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_in_scratch", policy, KOKKOS_LAMBDA(const Member& team) {
        Scratch staged(team.team_scratch(0), static_cast<size_t>(n) * stride);
        Scratch ends(team.team_scratch(0), static_cast<size_t>(ends_size));
        Offsets line_start(team.team_scratch(0), tile);
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        for (int l = team.team_rank(); l < count; l += team.team_size()) line_start(l) = g.offset(first + l);
        team.team_barrier();
        // Copies in memory order (along j when lines are contiguous, else across lines),
        // copy_batch loads or stores in flight per thread, (l, j) stepped without division.
        double* const data = field.data();
        const long axis_step = g.step[g.axis];
        auto copy = [&](bool load) {
          const int total = count * n, threads = team.team_size();
          const int inner = g.axis_is_contiguous ? n : count;
          const int inner_step = threads % inner, outer_step = threads / inner;
          int i = team.team_rank() % inner, o = team.team_rank() / inner;
          for (int flat = team.team_rank(); flat < total;) {
            long global[copy_batch];
            int local[copy_batch], m = 0;
            for (; m < copy_batch && flat < total; ++m, flat += threads) {
              const int l = g.axis_is_contiguous ? o : i, j = g.axis_is_contiguous ? i : o;
              global[m] = line_start(l) + j * axis_step;
              local[m] = j * stride + l;
              i += inner_step;
              o += outer_step;
              if (i >= inner) {
                i -= inner;
                ++o;
              }
            }
            double value[copy_batch];
            for (int u = 0; u < copy_batch; ++u)
              if (u < m) value[u] = load ? data[global[u]] : staged(local[u]);
            for (int u = 0; u < copy_batch; ++u)
              if (u < m) (load ? staged(local[u]) : data[global[u]]) = value[u];
          }
        };
        copy(true);
        team.team_barrier();
        Sweeps{team, staged, ends, n, count, stride, tile, alpha, beta}.filter(iterations, adjoint);  // ends with a barrier
        copy(false);
      });
}

// One thread per line, in place in global memory.
template <class Space, class Field3>
void filter_lines_in_place(const Space& space, const Field3& field, const LineGeometry<typename Field3::array_layout>& g,
                           const Coefficients& c, bool adjoint) {
  const int n = g.length;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_in_place", Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>(space, 0, g.lines),
      KOKKOS_LAMBDA(const long q) {
        int i0[3];
        g.index(q, 0, i0);
        auto line = [&](int j) -> double& {
          int i[3] = {i0[0], i0[1], i0[2]};
          i[g.axis] = j;
          return at(field, i);
        };
        run_line(line, n, alpha, beta, iterations, adjoint);
      });
}

// CPU threads: a work item stages a tile of host_tile_lines lines in its level-1 scratch as
// tile(j, l) at j * host_tile_lines + l and filters them in lockstep, vectorised across
// lines. Plain loops copy the tile: lines side by side in memory (an axis other than the
// contiguous one) copy as one contiguous run per entry j; others line by line.
constexpr int host_tile_lines = 32;

template <class Space, class Field3>
void filter_lines_on_host(const Space& space, const Field3& field, const LineGeometry<typename Field3::array_layout>& g,
                          const Coefficients& c, bool adjoint) {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  constexpr int tile = host_tile_lines;
  const int n = g.length;
  const long teams = (g.lines + tile - 1) / tile;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const long axis_step = g.step[g.axis];
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
        if (side_by_side) {
          for (int j = 0; j < n; ++j)
            for (int l = 0; l < count; ++l) t[static_cast<size_t>(j) * tile + l] = data[start + j * axis_step + l];
        } else {
          for (int l = 0; l < count; ++l) {
            const long line = g.offset(first + l);
            for (int j = 0; j < n; ++j) t[static_cast<size_t>(j) * tile + l] = data[line + j * axis_step];
          }
        }
        for (int j = 0; j < n; ++j)  // a partial tile's spare lines: zeros, never garbage or denormals
          for (int l = count; l < tile; ++l) t[static_cast<size_t>(j) * tile + l] = 0;
        filter_lines_lockstep<tile>(t, n, alpha, beta, iterations, adjoint);
        if (side_by_side) {
          for (int j = 0; j < n; ++j)
            for (int l = 0; l < count; ++l) data[start + j * axis_step + l] = t[static_cast<size_t>(j) * tile + l];
        } else {
          for (int l = 0; l < count; ++l) {
            const long line = g.offset(first + l);
            for (int j = 0; j < n; ++j) data[line + j * axis_step] = t[static_cast<size_t>(j) * tile + l];
          }
        }
      });
}

// Whether a host tile of lines of length n fits the level-1 scratch.
template <class Space>
bool fits_host_tile(const Space& space, int n) {
  const long budget = Kokkos::TeamPolicy<Space>(space, 1, 1).scratch_size_max(1) - 64;  // less shmem_size's padding
  return static_cast<long>(n) * host_tile_lines * static_cast<long>(sizeof(double)) <= budget;
}

// Lines per scratch tile for lines of length n on this space, 0 when the lines do not fit.
// A GPU team holds every piece of its lines in registers (TeamSweeps), so a tile also
// needs a thread per piece.
template <class Space>
int scratch_tile_lines(const Space& space, int n) {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Sweeps = TeamSweeps<Member, Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>>;
  const Kokkos::TeamPolicy<Space> probe(space, 1, 1);
  const long budget = probe.scratch_size_max(0);
  // Room for a tile of lines (plus one padding column), their start offsets and the pieces' ends.
  const long pieces = Sweeps::pieces(n);
  const long per_line = (static_cast<long>(n) + 1 + 2 * pieces) * static_cast<long>(sizeof(double));
  const long alignment_slack = 3 * 64;  // shmem_size pads each of the three scratch views
  const long fits = (budget - alignment_slack - static_cast<long>(n) * static_cast<long>(sizeof(double))) / per_line;
  long tile = fits < max_tile_lines ? fits : max_tile_lines;
  if (tile > max_team_threads / pieces) tile = max_team_threads / pieces;
  return tile >= 1 ? static_cast<int>(tile) : 0;
}

}  // namespace Details

// Applies the K-iterated recursive filter (or its transpose) in place along `axis` of
// `field` (rank 1-3, LayoutLeft or LayoutRight, contiguous, in Space's memory).
template <class Space, class View>
void apply_filter(const Space& space, const View& field, int axis, const Coefficients& c,
                  Transpose transpose = Transpose::no) {
  static_assert(Kokkos::SpaceAccessibility<Space, typename View::memory_space>::accessible,
                "pk::rfilter::apply_filter: the field must be accessible from the execution space");
  require(axis >= 0 && axis < static_cast<int>(View::rank),
          "recursive filter: axis " + std::to_string(axis) + " does not exist in a rank-" +
              std::to_string(View::rank) + " field");
  require(c.iterations >= 1 && c.alpha > 0 && c.alpha < 1, "recursive filter: coefficients not set (use make_coefficients)");
  const auto field3 = Details::as_rank3(field);
  const auto geometry = Details::line_geometry(field3, axis);
  if (geometry.lines == 0 || geometry.length == 0) return;
  const bool adjoint = transpose == Transpose::yes;
  if constexpr (Details::is_host_space<Space>()) {
    if (Details::fits_host_tile(space, geometry.length))
      Details::filter_lines_on_host(space, field3, geometry, c, adjoint);
    else
      Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
  } else {
    const int tile = Details::scratch_tile_lines(space, geometry.length);
    if (tile > 0)
      Details::filter_lines_in_scratch(space, field3, geometry, c, adjoint, tile);
    else
      Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
  }
}

// Applies the filter along every axis whose extent exceeds 1, with that axis' coefficients
// (a separable Gaussian). The transpose runs the axes in reverse order.
template <class Space, class View>
void apply_filter_all_axes(const Space& space, const View& field, const Coefficients (&per_axis)[View::rank],
                           Transpose transpose = Transpose::no) {
  constexpr int rank = static_cast<int>(View::rank);
  for (int step = 0; step < rank; ++step) {
    const int axis = transpose == Transpose::no ? step : rank - 1 - step;
    if (field.extent(axis) > 1) apply_filter(space, field, axis, per_axis[axis], transpose);
  }
}

}  // namespace pk::rfilter
