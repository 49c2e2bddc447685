#pragma once
// Algorithm 1 on a tile of lines held in a team's scratch, with several threads per line.
// One thread per line makes every sweep a chain of n dependent accesses, which leaves a GPU
// waiting on latency; here each line is cut into pieces of `Piece` entries, one per thread,
// held in registers for all 2K sweeps. Each sweep of the recurrence y_j = c_j x_j + alpha y_{j-1}
// runs in two phases:
//   1. each thread runs its piece from a zero state and publishes where the piece ends;
//   2. each thread forms the true state entering its piece from the ends of the pieces
//      before it (Horner in alpha^Piece) and adds alpha^(e+1) * state to its e-th entry,
//      which is exact because the recurrence is linear.
// Entries past the line's end are held at zero, so a short last piece needs no special case:
// a backward sweep passes through them with a zero state. The result equals filter_line /
// filter_line_adjoint up to rounding.
#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// Team layout: thread r owns piece r / tile_lines of line r % tile_lines, so that a warp's
// threads touch consecutive lines of one scratch row (tile(j * stride + l)): no bank conflicts.
// The team has tile_lines * pieces(n) threads.
template <class Member, class Tile, int Piece = 16>
struct TeamSweeps {
  static KOKKOS_INLINE_FUNCTION int pieces(int n) { return (n + Piece - 1) / Piece; }
  // Scratch entries `ends` needs (two buffers, so that one barrier per sweep suffices).
  static KOKKOS_INLINE_FUNCTION int ends_size(int n, int tile_lines) { return 2 * tile_lines * pieces(n); }

  const Member& team;
  Tile tile;  // entry (j, l) at tile(j * stride + l)
  Tile ends;  // ends_size(n, tile_lines) entries
  int n, count, stride, tile_lines;
  double alpha, beta;

  // Loads this thread's piece, runs the K iterations (or their adjoint), stores it back.
  // Ends with a team barrier.
  KOKKOS_INLINE_FUNCTION void filter(int iterations, bool adjoint) const {
    const int r = team.team_rank(), l = r % tile_lines, p = r / tile_lines;
    const int begin = p * Piece;
    const bool active = l < count && p < pieces(n);
    double v[Piece];  // indexed by constants only (loops unrolled), so it stays in registers
    for (int e = 0; e < Piece; ++e) v[e] = active && begin + e < n ? tile(static_cast<size_t>(begin + e) * stride + l) : 0.0;
    double alpha_piece = 1;
    for (int e = 0; e < Piece; ++e) alpha_piece *= alpha;
    int buffer = 0;
    // The sweeps weight every entry by beta; the boundary weights are applied as factors
    // over beta on the entry that carries them.
    const double end_over_beta = 1.0 / ((1.0 + alpha) * beta);
    if (!adjoint) {
      for (int k = 1; k <= iterations; ++k) {
        if (k > 1) scale(v, 0, end_over_beta);  // advancing, eq. (6): p_0 = c_k s_0
        sweep<false>(v, alpha_piece, buffer);
        sweep<true>(v, alpha_piece, buffer, end_over_beta);  // backing, eq. (7)
      }
    } else {
      for (int k = iterations; k >= 1; --k) {
        sweep<false>(v, alpha_piece, buffer);  // backing^T
        scale(v, n - 1, end_over_beta);
        sweep<true>(v, alpha_piece, buffer);  // advancing^T
        if (k > 1) scale(v, 0, end_over_beta);
      }
    }
    if (active)
      for (int e = 0; e < Piece; ++e)
        if (begin + e < n) tile(static_cast<size_t>(begin + e) * stride + l) = v[e];
    team.team_barrier();
  }

  // One sweep y_j = beta x_j + alpha y_{j-1} over the piece v, forwards or backwards; a
  // backward sweep first scales the line's last entry by `last_factor` (the backing
  // filter's end weight over beta, applied to the advancing result). Alternates the ends buffer.
  template <bool backward>
  KOKKOS_INLINE_FUNCTION void sweep(double (&v)[Piece], double alpha_piece, int& buffer, double last_factor = 1) const {
    const int r = team.team_rank(), l = r % tile_lines, p = r / tile_lines, chunks = pieces(n);
    const int begin = p * Piece, held = n - begin;  // entries e < held lie on the line
    const bool active = l < count && p < chunks;
    const bool whole = held >= Piece;  // every piece but a short last one: no masks
    if (backward && last_factor != 1) scale(v, n - 1, last_factor);
    double y = 0;
    if (whole) {
      for (int s = 0; s < Piece; ++s) {
        const int e = backward ? Piece - 1 - s : s;
        y = beta * v[e] + alpha * y;
        v[e] = y;
      }
    } else {  // entries past the line's end stay zero, so a backward sweep passes them with y = 0
      for (int s = 0; s < Piece; ++s) {
        const int e = backward ? Piece - 1 - s : s;
        y = beta * v[e] + alpha * y;
        v[e] = e < held ? y : 0.0;
      }
    }
    const int order = backward ? chunks - 1 - p : p;  // this piece's place in sweep order
    double* const published = &ends(static_cast<size_t>(buffer) * tile_lines * chunks);
    if (active) published[order * tile_lines + l] = y;
    team.team_barrier();
    if (active && order > 0) {
      double state = 0;
      for (int q = 0; q < order; ++q) state = alpha_piece * state + published[q * tile_lines + l];
      double correction = alpha * state;
      for (int s = 0; s < Piece; ++s) {
        const int e = backward ? Piece - 1 - s : s;
        if (whole || e < held) v[e] += correction;
        correction *= alpha;
      }
    }
    buffer ^= 1;
  }

  // Multiplies entry j of the line by factor when this thread holds it.
  KOKKOS_INLINE_FUNCTION void scale(double (&v)[Piece], int j, double factor) const {
    const int begin = (team.team_rank() / tile_lines) * Piece;
    if (j < begin || j >= begin + Piece) return;
    for (int e = 0; e < Piece; ++e)
      if (begin + e == j) v[e] *= factor;
  }
};

}  // namespace pk::rfilter::Details
