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

// A GPU team holds a tile of the most lines (a power of two, at most max_tile_lines) whose
// pieces need at most max_team_threads threads, one per piece (TeamSweeps). Registers are
// capped so that several teams share an SM and one team's loads overlap another's sweeps
// (a team's barriers hold its warps in one phase). On the H100 (256^3, K = 4) the y and z
// passes ran at 0.70-0.75 of the copy roofline with tiles of 16 lines (256 threads), at
// 0.59-0.67 with 8 and 0.51-0.58 with 4.
constexpr int max_tile_lines = 16;
constexpr int max_team_threads = 256;
// Doubles in one row of a GPU's shared-memory banks (32 banks of 4 bytes).
constexpr int bank_row = 16;

template <class Space>
constexpr bool is_host_space() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

template <class Space>
using ScratchView = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
// Pieces of 16 entries (TeamSweeps' default): with teams of 256 threads on the H100 (256^3,
// K = 4), pieces of 8 under a 64- or 80-register cap ran 5-13 % slower.
template <class Space>
using SpaceSweeps = TeamSweeps<typename Kokkos::TeamPolicy<Space>::member_type, ScratchView<Space>>;
// GPU teams of up to max_team_threads threads, MinTeams of which fit an SM: at most
// 65536 / (max_team_threads * MinTeams) registers per thread.
template <class Space, int MinTeams>
using GpuTeams = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<max_team_threads, MinTeams>>;

// Row of a staged GPU tile of `tile` lines (a power of two up to bank_row): room for n
// entries and a gap after each piece, rounded up to bank_row / tile modulo bank_row.
inline int staged_row(int n, int pieces, int tile) {
  const int used = n + pieces, wanted = bank_row / tile % bank_row;
  return used + ((wanted - used % bank_row) % bank_row + bank_row) % bank_row;
}

// Copies the entries (l, j), l < count, j < n, between a block of memory (at block[l * n + j])
// and a staged tile (at l * row + j + j / Piece): thread r takes the flat indices r,
// r + threads, ..., which read or write consecutive addresses across a warp; Batch of them
// in flight at once, (l, j) stepped without division.
template <int Piece, int Batch, class Member, class Tile>
KOKKOS_INLINE_FUNCTION void copy_block(const Member& team, double* block, const Tile& staged, int n, int count, int row,
                                       bool load) {
  const int total = count * n, threads = team.team_size();
  const int j_step = threads % n, l_step = threads / n;
  int j = team.team_rank() % n, l = team.team_rank() / n;
  for (int first = team.team_rank(); first < total; first += Batch * threads) {
    int local[Batch];
    for (int u = 0; u < Batch; ++u) {
      local[u] = l * row + j + j / Piece;
      j += j_step;
      l += l_step;
      if (j >= n) {
        j -= n;
        ++l;
      }
    }
    double value[Batch];
    if (first + (Batch - 1) * threads < total) {  // a whole batch: accesses free of branches
      for (int u = 0; u < Batch; ++u) value[u] = load ? block[first + u * threads] : staged(local[u]);
      for (int u = 0; u < Batch; ++u) (load ? staged(local[u]) : block[first + u * threads]) = value[u];
    } else {
      for (int u = 0; u < Batch; ++u)
        if (first + u * threads < total) value[u] = load ? block[first + u * threads] : staged(local[u]);
      for (int u = 0; u < Batch; ++u)
        if (first + u * threads < total) (load ? staged(local[u]) : block[first + u * threads]) = value[u];
    }
  }
}

// GPU teams for lines along the contiguous axis, where a tile is one block of memory (line q
// starts at q * n). The block is staged in scratch, each thread's share of it in flight at
// once, and written back after the sweeps. In scratch, entry j of line l lies at
// l * row + j + j / Piece (staged_row): the gap after each piece and row = bank_row / tile
// (mod bank_row) put the threads of a half-warp, which hold one entry of different pieces
// and lines, on distinct banks.
template <class Space, class Field3>
void filter_lines_staged(const Space& space, const Field3& field, const LineGeometry<typename Field3::array_layout>& g,
                         const Coefficients& c, bool adjoint, int tile) {
  // At most 80 registers, 3 teams of 256 threads per SM; ptxas (sm_90) spills none (at 64 it
  // would spill the copy's 16 entries in flight).
  using Policy = GpuTeams<Space, 3>;
  using Member = typename Policy::member_type;
  using Scratch = ScratchView<Space>;
  using Sweeps = SpaceSweeps<Space>;
  constexpr int piece = Sweeps::piece_size;
  const int n = g.length, pieces = Sweeps::pieces(n), row = staged_row(n, pieces, tile);
  const int staged_size = tile * row, ends_size = Sweeps::ends_size(n, tile);
  const long teams = (g.lines + tile - 1) / tile;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  const size_t scratch_bytes = Scratch::shmem_size(static_cast<size_t>(staged_size)) +
                               Scratch::shmem_size(static_cast<size_t>(ends_size));
  const Policy policy =
      Policy(space, static_cast<int>(teams), tile * pieces).set_scratch_size(0, Kokkos::PerTeam(scratch_bytes));
  double* const data = field.data();
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_staged", policy, KOKKOS_LAMBDA(const Member& team) {
        Scratch staged(team.team_scratch(0), static_cast<size_t>(staged_size));
        Scratch ends(team.team_scratch(0), static_cast<size_t>(ends_size));
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        double* const block = data + g.offset(first);
        copy_block<piece, piece>(team, block, staged, n, count, row, true);
        team.team_barrier();
        const Sweeps sweeps{team, ends, n, count, tile, alpha, beta};
        const int line = sweeps.line() * row;
        sweeps.filter([&](int j) -> double& { return staged(line + j + j / piece); }, iterations, adjoint);
        team.team_barrier();
        copy_block<piece, piece>(team, block, staged, n, count, row, false);
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
  using Policy = GpuTeams<Space, 4>;  // at most 64 registers, 4 teams of 256 threads per SM; no spills
  using Member = typename Policy::member_type;
  using Scratch = ScratchView<Space>;
  using Sweeps = SpaceSweeps<Space>;
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
        // Applies move(field entry, tile entry) to every entry of the tile's lines.
        auto each_entry = [&](auto&& move) {
          if (side_by_side) {
            for (int j = 0; j < n; ++j)
              for (int l = 0; l < count; ++l) move(data[start + j * axis_step + l], t[static_cast<size_t>(j) * tile + l]);
          } else {
            for (int l = 0; l < count; ++l) {
              const long line = g.offset(first + l);
              for (int j = 0; j < n; ++j) move(data[line + j * axis_step], t[static_cast<size_t>(j) * tile + l]);
            }
          }
        };
        each_entry([](const double& entry, double& staged) { staged = entry; });
        for (int j = 0; j < n; ++j)  // a partial tile's spare lines: zeros, never garbage or denormals
          for (int l = count; l < tile; ++l) t[static_cast<size_t>(j) * tile + l] = 0;
        filter_lines_lockstep<tile>(t, n, alpha, beta, iterations, adjoint);
        each_entry([](double& entry, const double& staged) { entry = staged; });
      });
}

// Whether a host tile of lines of length n fits the level-1 scratch.
template <class Space>
bool fits_host_tile(const Space& space, int n) {
  const long budget = Kokkos::TeamPolicy<Space>(space, 1, 1).scratch_size_max(1) - 64;  // less shmem_size's padding
  return static_cast<long>(n) * host_tile_lines * static_cast<long>(sizeof(double)) <= budget;
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

// Lines per GPU team for lines of length n along an axis, 0 when they do not fit
// (filter_lines_in_place): a thread per piece of each line and, for a staged tile, scratch memory.
template <class Space>
int tile_lines(const Space& space, int n, bool axis_is_contiguous) {
  const long budget = Kokkos::TeamPolicy<Space>(space, 1, 1).scratch_size_max(0);
  const long word = sizeof(double), alignment_slack = 3 * 64;  // shmem_size pads each scratch view
  const int pieces = SpaceSweeps<Space>::pieces(n);
  if (pieces > max_team_threads) return 0;
  // Per line its pieces' ends (two buffers) and, staged, a row (staged_row) of the tile.
  const long per_line = (2 * pieces + (axis_is_contiguous ? n + pieces + bank_row : 0)) * word;
  const long fits = (budget - alignment_slack) / per_line;
  int tile = 1;
  while (2 * tile <= max_tile_lines && 2 * tile * pieces <= max_team_threads && 2 * tile <= fits) tile *= 2;
  return tile <= fits ? tile : 0;
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
    const int tile = Details::tile_lines(space, geometry.length, geometry.axis_is_contiguous);
    if (tile == 0)
      Details::filter_lines_in_place(space, field3, geometry, c, adjoint);
    else if (geometry.axis_is_contiguous)
      Details::filter_lines_staged(space, field3, geometry, c, adjoint, tile);
    else
      Details::filter_lines_in_registers(space, field3, geometry, c, adjoint, tile);
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
