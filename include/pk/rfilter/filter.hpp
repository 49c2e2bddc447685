#pragma once
// The K-iterated Gaussian recursive filter (Algorithm 1) along one axis of a 1-D, 2-D or
// 3-D field, every line at once, in place. Lines short enough for a team are filtered in
// its scratch memory or, on a GPU, its threads' registers (one global read and write per
// entry whatever K is); longer lines run in place in global memory, one thread per line
// (see chunked_filter.hpp for splitting long lines across threads).
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

// Teams of a tile of lines (the launch bounds matter to GPUs only). Two teams of
// max_team_threads per SM allow 128 registers, so the 16 entries of each thread's piece
// stay in registers. On the H100 (256^3, K = 4) pieces of 8 under a 64- or 80-register cap
// ran 5-13 % slower.
template <class Space>
using TilePolicy = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<max_team_threads, 2>>;

// Whether a team stages its tile of lines in scratch. A CPU thread filters all its lines at
// once there. A GPU team stages lines that run along the contiguous axis, which turns their
// loads and stores into whole segments; other lines its threads read straight into
// registers (filter_lines_in_registers).
template <class Space>
bool stages_tile(bool axis_is_contiguous) {
  return is_host_space<Space>() || axis_is_contiguous;
}

// Team = a tile of up to `tile` lines, staged in scratch as tile(l, j) at j*(tile+1)+l:
// threads on consecutive lines read consecutive words, and the +1 keeps the load/store
// phase (consecutive j when lines are contiguous) free of bank conflicts.
template <class Space, class Field3>
void filter_lines_in_scratch(const Space& space, const Field3& field, const LineGeometry<typename Field3::array_layout>& g,
                             const Coefficients& c, bool adjoint, int tile) {
  using Policy = TilePolicy<Space>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Offsets = Kokkos::View<long*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Sweeps = TeamSweeps<Member, Scratch>;
  constexpr bool host = is_host_space<Space>();
  const int n = g.length, stride = tile + 1;
  const long teams = (g.lines + tile - 1) / tile;
  const int team_size = host ? 1 : tile * Sweeps::pieces(n);
  const int ends_size = host ? 0 : Sweeps::ends_size(n, tile);
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const size_t scratch_bytes = Scratch::shmem_size(static_cast<size_t>(n) * stride) +
                               Scratch::shmem_size(static_cast<size_t>(ends_size)) + Offsets::shmem_size(tile);
  const Policy policy =
      Policy(space, static_cast<int>(teams), team_size).set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  double* const data = field.data();
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
              global[m] = line_start(l) + j * g.axis_step;
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
        if (host) {  // a CPU thread: all lines at once, vectorised across lines
          filter_lines_lockstep(staged, n, count, stride, alpha, beta, iterations, adjoint);
        } else {  // a GPU team: one thread per piece of each line
          const Sweeps sweeps{team, ends, n, count, tile, alpha, beta};
          const int l = sweeps.line();
          sweeps.filter([&](int j) -> double& { return staged(static_cast<size_t>(j) * stride + l); }, iterations,
                        adjoint);
          team.team_barrier();
        }
        copy(false);
      });
}

// GPU teams for lines that do not run along the contiguous axis: each thread reads its piece
// straight from global memory into registers, every entry in flight at once, and writes it
// back; only the pieces' ends pass through scratch. A warp's threads hold consecutive lines
// (TeamSweeps), which lie at consecutive addresses, so each access reads whole sectors.
template <class Space, class Field3>
void filter_lines_in_registers(const Space& space, const Field3& field,
                               const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint,
                               int tile) {
  using Policy = TilePolicy<Space>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Sweeps = TeamSweeps<Member, Scratch>;
  const int n = g.length, ends_size = Sweeps::ends_size(n, tile);
  const long teams = (g.lines + tile - 1) / tile;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const Policy policy = Policy(space, static_cast<int>(teams), tile * Sweeps::pieces(n))
                            .set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(static_cast<size_t>(ends_size))));
  double* const data = field.data();
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_in_registers", policy, KOKKOS_LAMBDA(const Member& team) {
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        const Sweeps sweeps{team, Scratch(team.team_scratch(0), static_cast<size_t>(ends_size)), n, count, tile, alpha,
                            beta};
        const int l = sweeps.line();
        double* const line = data + (l < count ? g.offset(first + l) : 0);
        sweeps.filter([&](int j) -> double& { return line[j * g.axis_step]; }, iterations, adjoint);
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

// Lines per team for lines of length n on this space, 0 when the lines do not fit. A GPU
// team holds every piece of its lines in registers (TeamSweeps), so a tile also needs a
// thread per piece; only a staged tile (stages_tile) needs room for its lines in scratch.
template <class Space>
int scratch_tile_lines(const Space& space, int n, bool staged) {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Sweeps = TeamSweeps<Member, Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>>;
  const Kokkos::TeamPolicy<Space> probe(space, 1, 1);
  const long budget = probe.scratch_size_max(0);
  long pieces = 0;  // (not a constant on the host, where nvcc would warn of the division below)
  if (!is_host_space<Space>()) pieces = Sweeps::pieces(n);
  // Per line: its staged entries and start offset, its pieces' ends (two buffers); per
  // staged tile: one padding column.
  const long word = sizeof(double), per_line = ((staged ? n + 1 : 0) + 2 * pieces) * word;
  const long padding = staged ? n * word : 0;
  const long alignment_slack = 3 * 64;  // shmem_size pads each of the three scratch views
  const long fits = (budget - alignment_slack - padding) / per_line;
  long tile = fits < max_tile_lines ? fits : max_tile_lines;
  if (pieces > 0) tile = tile * pieces <= max_team_threads ? tile : max_team_threads / pieces;
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
  const bool staged = Details::stages_tile<Space>(geometry.axis_is_contiguous);
  const int tile = Details::scratch_tile_lines(space, geometry.length, staged);
  if (tile == 0)
    Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
  else if (staged)
    Details::filter_lines_in_scratch(space, field3, geometry, c, adjoint, tile);
  else
    Details::filter_lines_in_registers(space, field3, geometry, c, adjoint, tile);
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
