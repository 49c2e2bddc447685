#pragma once
// GPU teams for lines along the contiguous axis, where a tile is one block of memory (line q
// starts at q * n). The block is staged in scratch, each thread's share of it in flight at
// once, and written back after the sweeps. In scratch, entry j of line l lies at
// l * row + j + j / Piece (staged_row): the gap after each piece and row = bank_row / tile
// (mod bank_row) put the bank_row threads whose doubles scratch serves in one cycle (half a
// warp, a quarter of a wavefront), which hold one entry of different pieces and lines, on
// distinct banks (tests/tstTuning.cpp checks it for every backend's facts).
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/lines.hpp>
#include <pk/rfilter/details/team_tiles.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// Copies the entries (l, j), l < count, j < n, between a block of memory (at block[l * n + j])
// and a staged tile (at l * row + j + j / Piece). Thread r takes the flat indices r,
// r + threads, ..., which read or write consecutive addresses across a warp, all in flight at
// once: at most Piece of them, since the team has a thread per Piece entries of each line.
// Their places in the tile are found once, (l, j) stepped without division, and serve both
// copies, rather than found again for the copy back (docs/rfilter.md).
template <int Piece>
struct BlockCopy {
  int first, threads, total;
  int place[Piece];

  template <class Member>
  KOKKOS_INLINE_FUNCTION BlockCopy(const Member& team, int n, int count, int row)
      : first(team.team_rank()), threads(team.team_size()), total(count * n) {
    const int j_step = threads % n, l_step = threads / n;
    int j = first % n, l = first / n;
    for (int u = 0; u < Piece; ++u) {
      place[u] = l * row + j + static_cast<int>(static_cast<unsigned>(j) / Piece);  // j >= 0: a shift
      j += j_step;
      l += l_step;
      if (j >= n) {
        j -= n;
        ++l;
      }
    }
  }

  template <class Tile>
  KOKKOS_INLINE_FUNCTION void to_tile(const double* block, const Tile& staged) const {
    double value[Piece];
    if (first + (Piece - 1) * threads < total) {  // all Piece: accesses free of branches
      for (int u = 0; u < Piece; ++u) value[u] = block[first + u * threads];
      for (int u = 0; u < Piece; ++u) staged(place[u]) = value[u];
    } else {
      for (int u = 0; u < Piece; ++u)
        if (first + u * threads < total) value[u] = block[first + u * threads];
      for (int u = 0; u < Piece; ++u)
        if (first + u * threads < total) staged(place[u]) = value[u];
    }
  }

  template <class Tile>
  KOKKOS_INLINE_FUNCTION void to_block(const Tile& staged, double* block) const {
    double value[Piece];
    if (first + (Piece - 1) * threads < total) {
      for (int u = 0; u < Piece; ++u) value[u] = staged(place[u]);
      for (int u = 0; u < Piece; ++u) block[first + u * threads] = value[u];
    } else {
      for (int u = 0; u < Piece; ++u)
        if (first + u * threads < total) value[u] = staged(place[u]);
      for (int u = 0; u < Piece; ++u)
        if (first + u * threads < total) block[first + u * threads] = value[u];
    }
  }
};

// Level-0 scratch of a staged team of `tile` lines of length n: the tile and the pieces' ends.
template <class ExecutionSpace, class Facts = Tuning<ExecutionSpace>>
size_t staged_scratch_bytes(int n, int tile) {
  using Sweeps = SpaceSweeps<ExecutionSpace>;
  const int row = staged_row<ExecutionSpace, Facts>(n, Sweeps::pieces(n), tile);
  return ScratchView<ExecutionSpace>::shmem_size(static_cast<size_t>(tile) * row) +
         ScratchView<ExecutionSpace>::shmem_size(static_cast<size_t>(Sweeps::ends_size(n, tile)));
}

template <class ExecutionSpace, class Field3>
void filter_lines_staged(const ExecutionSpace& space, const Field3& field,
                         const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint,
                         int tile) {
  using Policy = GpuTeams<ExecutionSpace, staged_teams_per_multiprocessor>;
  using Member = typename Policy::member_type;
  using Scratch = ScratchView<ExecutionSpace>;
  using Sweeps = SpaceSweeps<ExecutionSpace>;
  constexpr int piece = Sweeps::piece_size;
  const int n = g.length, pieces = Sweeps::pieces(n), row = staged_row<ExecutionSpace>(n, pieces, tile);
  const int staged_size = tile * row, ends_size = Sweeps::ends_size(n, tile);
  const long teams = (g.lines + tile - 1) / tile;
  const auto weights = Sweeps::weights(c.alpha, c.beta);
  const int iterations = c.iterations;
  const Policy policy = Policy(space, static_cast<int>(teams), tile * pieces)
                            .set_scratch_size(0, Kokkos::PerTeam(staged_scratch_bytes<ExecutionSpace>(n, tile)));
  double* const data = field.data();
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_staged", policy, KOKKOS_LAMBDA(const Member& team) {
        Scratch staged(team.team_scratch(0), static_cast<size_t>(staged_size));
        Scratch ends(team.team_scratch(0), static_cast<size_t>(ends_size));
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        double* const block = data + g.offset(first);
        const BlockCopy<piece> copy(team, n, count, row);
        copy.to_tile(block, staged);
        team.team_barrier();
        const Sweeps sweeps(team, ends.data(), n, count, tile, weights);
        // The sweeps read entries j of this thread's piece only, where j / piece is piece().
        const int line = sweeps.line() * row + sweeps.piece();
        sweeps.filter([&](int j) -> double& { return staged(line + j); }, iterations, adjoint);
        team.team_barrier();
        copy.to_block(staged, block);
      });
}

}  // namespace pk::rfilter::Details
