#pragma once
// Algorithm 1 on a tile of lines with several threads per line. One thread per line makes
// every sweep a chain of n dependent accesses, which leaves a GPU waiting on latency; here
// each line is cut into pieces of `Piece` entries, one per thread, held in registers for
// all 2K sweeps. Each sweep of the recurrence y_j = beta x_j + alpha y_{j-1} runs in two
// phases:
//   1. each thread runs its piece from a zero state and publishes where the piece ends;
//   2. each thread forms the true state entering its piece from the ends of the pieces
//      before it (Horner in alpha^Piece) and adds alpha^(e+1) * state to its e-th entry,
//      which is exact because the recurrence is linear.
// A piece is held divided by a scale shared by every thread, and a sweep multiplies the scale
// by beta instead of each entry: a sweep then costs two fused multiply-adds per entry, the
// second with a weight alpha^(e+1) that the GPU reads from constant memory (`Weights`).
// The kernels are bound by their instructions, not by memory (docs/rfilter.md), so each
// instruction per entry counts.
// Entries past the line's end are held at zero, so a short last piece needs no special case
// beyond zeroing them after a forward sweep: a backward sweep passes through them with a
// zero state. The result equals filter_line / filter_line_adjoint up to rounding.
#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// Team layout: thread r owns piece r / tile_lines of line r % tile_lines, so that a warp's
// threads hold consecutive lines, which lie at consecutive addresses in global memory when
// they do not run along the contiguous axis. The team has tile_lines * pieces(n) threads.
// Each thread finds its place and its line's row of ends once, not in every sweep
// (docs/rfilter.md has what that saved).
template <class Member, int Piece = 16>
class TeamSweeps {
 public:
  static constexpr int piece_size = Piece;
  static KOKKOS_INLINE_FUNCTION int pieces(int n) { return (n + Piece - 1) / Piece; }
  // Ends of a line's pieces in sweep order, a row per line: an odd length puts the rows that
  // the threads of a warp read at once in distinct banks.
  static KOKKOS_INLINE_FUNCTION int ends_row(int n) { return pieces(n) | 1; }
  // Scratch entries the ends need: two buffers (forward and backward sweeps), so that one
  // barrier per sweep suffices.
  static KOKKOS_INLINE_FUNCTION int ends_size(int n, int tile_lines) { return 2 * tile_lines * ends_row(n); }

  // What every thread multiplies by, made on the host and captured by the kernel: on a GPU
  // a kernel's arguments lie in constant memory, which arithmetic reads as an operand.
  struct Weights {
    double alpha, beta;
    double power[Piece];  // alpha^(e+1), e = 0 .. Piece - 1
    double end_factor;    // the end conditions' 1 / (1 + alpha) over the sweep's beta
  };
  static Weights weights(double alpha, double beta) {
    Weights w{alpha, beta, {}, 1.0 / ((1.0 + alpha) * beta)};
    double power = 1;
    for (double& p : w.power) p = power *= alpha;
    return w;
  }

  // ends: ends_size(n, tile_lines) entries of scratch; count: lines of this tile that exist
  // (the last tile may be partial).
  KOKKOS_INLINE_FUNCTION TeamSweeps(const Member& team, double* ends, int n, int count, int tile_lines,
                                    const Weights& weights)
      : team_(team),
        weights_(weights),
        n_(n),
        line_(team.team_rank() % tile_lines),
        piece_(team.team_rank() / tile_lines),
        mine_(line_ < count && piece_ < pieces(n)),
        forward_ends_(ends + line_ * ends_row(n)),
        backward_ends_(forward_ends_ + tile_lines * ends_row(n)) {}

  KOKKOS_INLINE_FUNCTION int line() const { return line_; }
  KOKKOS_INLINE_FUNCTION int piece() const { return piece_; }

  // Runs the K iterations (or their adjoint) on this thread's piece of line line(), whose
  // entry j is entry(j) (a reference), called for the piece's own j only. Every entry of the
  // piece is read before any is used, so that the loads are in flight together; entries are
  // written back at the end only.
  template <class Entry>
  KOKKOS_INLINE_FUNCTION void filter(const Entry& entry, int iterations, bool adjoint) const {
    const int begin = piece_ * Piece, n = n_;
    double w[Piece];                    // indexed by constants only (loops unrolled), so it stays in registers
    if (mine_ && begin + Piece <= n) {  // a whole piece: loads free of branches
      for (int e = 0; e < Piece; ++e) w[e] = entry(begin + e);
    } else {
      for (int e = 0; e < Piece; ++e) w[e] = mine_ && begin + e < n ? entry(begin + e) : 0.0;
    }
    double scale = 1;  // the line is w * scale
    // The end conditions are factors on the entry that carries them, over the sweep's beta.
    const double end_factor = weights_.end_factor;
    if (!adjoint) {
      for (int k = 1; k <= iterations; ++k) {
        if (k > 1) scale_entry(w, 0, end_factor);  // advancing, eq. (6): p_0 = c_k s_0
        sweep<false>(w, scale);
        scale_entry(w, n - 1, end_factor);  // backing, eq. (7): s_{N-1} = p_{N-1} / (1 + alpha)
        sweep<true>(w, scale);
      }
    } else {
      for (int k = iterations; k >= 1; --k) {
        sweep<false>(w, scale);  // backing^T
        scale_entry(w, n - 1, end_factor);
        sweep<true>(w, scale);  // advancing^T
        if (k > 1) scale_entry(w, 0, end_factor);
      }
    }
    if (mine_ && begin + Piece <= n) {
      for (int e = 0; e < Piece; ++e) entry(begin + e) = w[e] * scale;
    } else if (mine_) {
      for (int e = 0; e < Piece; ++e)
        if (begin + e < n) entry(begin + e) = w[e] * scale;
    }
  }

  // One sweep y_j = beta x_j + alpha y_{j-1} over the piece, forwards or backwards, on the
  // held w = x / scale: leaves y / scale in w.
  template <bool backward>
  KOKKOS_INLINE_FUNCTION void sweep(double (&w)[Piece], double& scale) const {
    const double alpha = weights_.alpha;
    double y = 0;
    for (int s = 0; s < Piece; ++s) {
      const int e = backward ? Piece - 1 - s : s;
      y = w[e] + alpha * y;
      w[e] = y;
    }
    const int order = backward ? pieces(n_) - 1 - piece_ : piece_;  // this piece's place in sweep order
    double* const ends = backward ? backward_ends_ : forward_ends_;
    if (mine_) ends[order] = y;
    team_.team_barrier();
    double state = 0;
    const double alpha_piece = weights_.power[Piece - 1];
    if (mine_)
      for (int q = 0; q < order; ++q) state = alpha_piece * state + ends[q];
    for (int s = 0; s < Piece; ++s) {  // entry e (in sweep order s) gains alpha^(s+1) * state
      const int e = backward ? Piece - 1 - s : s;
      w[e] += weights_.power[s] * state;
    }
    if (!backward) {  // a short last piece: entries past the line's end back to zero
      const int held = n_ - piece_ * Piece;
      if (held < Piece)
        for (int e = 0; e < Piece; ++e)
          if (e >= held) w[e] = 0;
    }
    // The held values grow as 1 / scale; folding the scale in before that exceeds 2^20 keeps
    // them within a factor 2^20 of the line's own. Every thread takes the same branch.
    scale *= weights_.beta;
    if (scale < 0x1p-20) {
      for (int e = 0; e < Piece; ++e) w[e] *= scale;
      scale = 1;
    }
  }

  // Multiplies entry j of the line by factor when this thread holds it. The line's first and
  // last entries, the only ones scaled, lie at the ends of a piece unless the last piece is
  // short: a constant register index, where a variable one costs a select per entry.
  KOKKOS_INLINE_FUNCTION void scale_entry(double (&w)[Piece], int j, double factor) const {
    const int e = j - piece_ * Piece;
    if (e == 0) {
      w[0] *= factor;
    } else if (e == Piece - 1) {
      w[Piece - 1] *= factor;
    } else if (e > 0 && e < Piece - 1) {
      for (int i = 1; i < Piece - 1; ++i) w[i] *= i == e ? factor : 1.0;
    }
  }

  const Member& team_;
  const Weights& weights_;
  int n_, line_, piece_;
  bool mine_;  // this thread holds a piece of a line that exists
  double* forward_ends_;
  double* backward_ends_;
};

}  // namespace pk::rfilter::Details
