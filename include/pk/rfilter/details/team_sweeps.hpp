#pragma once
// Algorithm 1 on a tile of lines held in a team's scratch, with several threads per line.
// One thread per line makes every sweep a chain of n dependent scratch accesses, which
// leaves a GPU waiting on latency; here each line is cut into `chunks` pieces and every
// sweep of the recurrence y_j = c_j x_j + alpha y_{j-1} runs in two phases:
//   1. each thread runs its piece from a zero state and records where the piece ends;
//   2. each thread forms the true state entering its piece from the ends of the pieces
//      before it (Horner in alpha^L, L the piece length) and adds alpha^(e+1) * state
//      to its e-th entry, which is exact because the recurrence is linear.
// The result equals filter_line / filter_line_adjoint up to rounding.
#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// Team layout: thread r owns piece r / tile_lines of line r % tile_lines, so that a warp's
// threads touch consecutive lines of one scratch row (tile(j * stride + l)): no bank conflicts.
template <class Member, class Tile>
struct TeamSweeps {
  const Member& team;
  Tile tile;   // entry (j, l) at tile(j * stride + l)
  Tile ends;   // tile_lines * chunks: where each piece ends from a zero state
  int n, count, stride, tile_lines, chunks;
  double alpha, beta;

  KOKKOS_INLINE_FUNCTION int piece_length() const { return (n + chunks - 1) / chunks; }

  // One sweep along every line of the tile, forwards or backwards; the line's first entry
  // in sweep order is weighted by `first`, the others by beta. Ends with a team barrier.
  KOKKOS_INLINE_FUNCTION void sweep(bool backward, double first, double alpha_piece) const {
    const int r = team.team_rank(), l = r % tile_lines, piece = r / tile_lines, length = piece_length();
    const int begin = piece * length, end = begin + length < n ? begin + length : n;
    const bool active = l < count && piece < chunks;
    auto at = [&](int s) -> double& { return tile(static_cast<size_t>(backward ? n - 1 - s : s) * stride + l); };
    if (active) {
      double y = 0;
      for (int s = begin; s < end; ++s) {
        y = (s == 0 ? first : beta) * at(s) + alpha * y;
        at(s) = y;
      }
      ends(piece * tile_lines + l) = y;
    }
    team.team_barrier();
    if (active && piece > 0) {
      double state = 0;
      for (int p = 0; p < piece; ++p) state = alpha_piece * state + ends(p * tile_lines + l);
      double correction = alpha * state;
      for (int s = begin; s < end; ++s) {
        at(s) += correction;
        correction *= alpha;
      }
    }
    team.team_barrier();
  }

  // Multiplies entry j of every line by factor (the adjoint's boundary weights).
  KOKKOS_INLINE_FUNCTION void scale(int j, double factor) const {
    const int r = team.team_rank();
    if (r < count) tile(static_cast<size_t>(j) * stride + r) *= factor;
    team.team_barrier();
  }

  KOKKOS_INLINE_FUNCTION void filter(int iterations, bool adjoint) const {
    const double end = 1.0 / (1.0 + alpha);
    double alpha_piece = 1;
    for (int e = 0; e < piece_length(); ++e) alpha_piece *= alpha;
    if (!adjoint) {
      for (int k = 1; k <= iterations; ++k) {
        sweep(false, k == 1 ? beta : end, alpha_piece);  // advancing, eq. (6)
        sweep(true, end, alpha_piece);                   // backing, eq. (7)
      }
    } else {
      for (int k = iterations; k >= 1; --k) {
        sweep(false, beta, alpha_piece);  // backing^T
        scale(n - 1, end / beta);
        sweep(true, beta, alpha_piece);  // advancing^T
        scale(0, (k == 1 ? beta : end) / beta);
      }
    }
  }
};

}  // namespace pk::rfilter::Details
