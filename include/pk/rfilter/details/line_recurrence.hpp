#pragma once
// Algorithm 1 on one line, in place, for any indexable line (a View row, a scratch tile).
#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// line(j) returns a reference to entry j of a line of length n (n >= 1).
// Forward: for k = 1..K, the advancing filter (6) primed with p_0 = c_k s_0 (c_1 = beta,
// c_k = 1/(1+alpha) after), then the backing filter (7) primed with s_{N-1} = p_{N-1}/(1+alpha).
template <class Line>
KOKKOS_INLINE_FUNCTION void filter_line(const Line& line, int n, double alpha, double beta, int iterations) {
  const double end = 1.0 / (1.0 + alpha);
  for (int k = 1; k <= iterations; ++k) {
    double p = (k == 1 ? beta : end) * line(0);
    line(0) = p;
    for (int j = 1; j < n; ++j) {  // advancing, eq. (6)
      p = beta * line(j) + alpha * p;
      line(j) = p;
    }
    double s = end * line(n - 1);
    line(n - 1) = s;
    for (int j = n - 2; j >= 0; --j) {  // backing, eq. (7)
      s = beta * line(j) + alpha * s;
      line(j) = s;
    }
  }
}

// The transpose of filter_line: the same matrices in reverse order, each transposed (the
// product turns out symmetric, so this equals filter_line up to rounding). The
// transpose of the backing filter is an advancing recurrence whose last entry carries the
// end weight; that of the advancing filter a backing one whose first entry carries c_k.
template <class Line>
KOKKOS_INLINE_FUNCTION void filter_line_adjoint(const Line& line, int n, double alpha, double beta, int iterations) {
  const double end = 1.0 / (1.0 + alpha);
  for (int k = iterations; k >= 1; --k) {
    double q = 0;
    for (int j = 0; j < n; ++j) {  // backing^T
      q = beta * line(j) + alpha * q;
      line(j) = q;
    }
    line(n - 1) = end / beta * q;
    double r = 0;
    for (int j = n - 1; j >= 0; --j) {  // advancing^T
      r = beta * line(j) + alpha * r;
      line(j) = r;
    }
    line(0) = (k == 1 ? beta : end) / beta * r;
  }
}

// The same recurrences for Width lines side by side, entry (j, l) at tile[j * Width + l]:
// the loops across the lines vectorise, and each line's running state stays in a register
// while the sweep steps along j. Results equal filter_line / filter_line_adjoint. The step
// across the lines says `omp simd` (every build has OpenMP): without it g++ unrolled a
// 16-line step (AVX2) into scalar code. It is a function of its own, never inlined into the
// kernel that stages the tile (host_tiles.hpp): inlined there, g++ 12 compiled the sweeps into
// slower code (docs/rfilter.md). ahead() is called once a step of every sweep: the caller's
// chance to ask memory for what it needs next while the sweeps work in cache.
template <int Width, class Ahead>
[[gnu::noinline]] KOKKOS_FUNCTION void filter_lines_lockstep(double* tile, int n, double alpha, double beta,
                                                             int iterations, bool adjoint, Ahead& ahead) {
  const double end = 1.0 / (1.0 + alpha);
  auto row = [&](int j) { return tile + static_cast<long>(j) * Width; };
  auto scale_row = [&](int j, double factor) {
    for (int l = 0; l < Width; ++l) row(j)[l] *= factor;
  };
  auto sweep = [&](int from, int to, int step) {
    double y[Width];
    for (int l = 0; l < Width; ++l) y[l] = row(from)[l];
    for (int j = from + step; j != to + step; j += step) {
      double* entries = row(j);
#pragma omp simd
      for (int l = 0; l < Width; ++l) entries[l] = y[l] = beta * entries[l] + alpha * y[l];
      ahead();
    }
  };
  if (!adjoint) {
    for (int k = 1; k <= iterations; ++k) {
      scale_row(0, k == 1 ? beta : end);
      sweep(0, n - 1, 1);  // advancing, eq. (6)
      scale_row(n - 1, end);
      sweep(n - 1, 0, -1);  // backing, eq. (7)
    }
  } else {
    for (int k = iterations; k >= 1; --k) {
      scale_row(0, beta);
      sweep(0, n - 1, 1);
      scale_row(n - 1, end);  // end / beta closes backing^T, beta opens advancing^T
      sweep(n - 1, 0, -1);
      scale_row(0, (k == 1 ? beta : end) / beta);
    }
  }
}

}  // namespace pk::rfilter::Details
