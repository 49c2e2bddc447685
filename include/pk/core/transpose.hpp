#pragma once
// An 8 x 8 block of doubles transposed between rows anywhere in memory: column c of the
// block (entry c of every row) becomes the 8 doubles at columns[c]. Host loops that move
// lines into SIMD lanes (the recursive filter's tiles of lines along the contiguous axis) do
// it a block at a time. On a host compiled with AVX-512, 8 loads, 24 shuffles and 8 stores;
// with AVX (x86-64-v3) four 4 x 4 blocks of 4 loads, 8 shuffles and 4 stores; elsewhere a
// scalar loop, which moves every double by itself (docs/rfilter.md).
//
//   pk::transpose_8x8({a, b, c, d, e, f, g, h}, {p, q, r, s, t, u, v, w});  // p[i] = row i's 0th
#include <Kokkos_Core.hpp>

#if (defined(__AVX512F__) || defined(__AVX__)) && defined(KOKKOS_IF_ON_HOST)  // Kokkos >= 3.6; 3.4.01: the loop
#include <immintrin.h>
#endif

namespace pk {

#if defined(__AVX512F__) && defined(KOKKOS_IF_ON_HOST)
namespace Details {
// Pairs of rows interleaved (t: 128-bit lane k holds entry 2k, or 2k + 1, of both rows), lanes
// of two pairs gathered (u: two entries of four rows), then of two quads (the columns).
inline void transpose_8x8_avx512(const double* const (&rows)[8], double* const (&columns)[8]) {
  __m512d t[8], u[8];
  for (int r = 0; r < 8; r += 2) {
    const __m512d a = _mm512_loadu_pd(rows[r]), b = _mm512_loadu_pd(rows[r + 1]);
    t[r] = _mm512_unpacklo_pd(a, b);
    t[r + 1] = _mm512_unpackhi_pd(a, b);
  }
  for (int h = 0; h < 2; ++h)
    for (int o = 0; o < 2; ++o) {
      const __m512d low = t[4 * h + o], high = t[4 * h + o + 2];
      u[4 * h + 2 * o] = _mm512_shuffle_f64x2(low, high, 0x88);
      u[4 * h + 2 * o + 1] = _mm512_shuffle_f64x2(low, high, 0xdd);
    }
  constexpr int first[4] = {0, 2, 1, 3};  // u[q] and u[q + 4] hold columns first[q] and first[q] + 4
  for (int q = 0; q < 4; ++q) {
    _mm512_storeu_pd(columns[first[q]], _mm512_shuffle_f64x2(u[q], u[q + 4], 0x88));
    _mm512_storeu_pd(columns[first[q] + 4], _mm512_shuffle_f64x2(u[q], u[q + 4], 0xdd));
  }
}
}  // namespace Details
#elif defined(__AVX__) && defined(KOKKOS_IF_ON_HOST)
namespace Details {
// Each 4 x 4 quarter: pairs of rows interleaved (t: entries 0 and 2, or 1 and 3, of both), then
// the 128-bit halves of two pairs joined (the columns).
inline void transpose_8x8_avx(const double* const (&rows)[8], double* const (&columns)[8]) {
  for (int r = 0; r < 8; r += 4)
    for (int c = 0; c < 8; c += 4) {
      __m256d t[4];
      for (int i = 0; i < 4; i += 2) {
        const __m256d a = _mm256_loadu_pd(rows[r + i] + c), b = _mm256_loadu_pd(rows[r + i + 1] + c);
        t[i] = _mm256_unpacklo_pd(a, b);
        t[i + 1] = _mm256_unpackhi_pd(a, b);
      }
      _mm256_storeu_pd(columns[c] + r, _mm256_permute2f128_pd(t[0], t[2], 0x20));
      _mm256_storeu_pd(columns[c + 1] + r, _mm256_permute2f128_pd(t[1], t[3], 0x20));
      _mm256_storeu_pd(columns[c + 2] + r, _mm256_permute2f128_pd(t[0], t[2], 0x31));
      _mm256_storeu_pd(columns[c + 3] + r, _mm256_permute2f128_pd(t[1], t[3], 0x31));
    }
}
}  // namespace Details
#endif

namespace Details {
KOKKOS_FORCEINLINE_FUNCTION void transpose_8x8_loop(const double* const (&rows)[8], double* const (&columns)[8]) {
  for (int c = 0; c < 8; ++c)
    for (int r = 0; r < 8; ++r) columns[c][r] = rows[r][c];
}
}  // namespace Details

// columns[c][r] = rows[r][c] for r, c < 8. The rows and the columns must not overlap.
KOKKOS_FORCEINLINE_FUNCTION void transpose_8x8(const double* const (&rows)[8], double* const (&columns)[8]) {
  // The scalar loop in a branch of its own: after a host branch's return, nvcc's host pass
  // warns that it is unreachable.
#if defined(__AVX512F__) && defined(KOKKOS_IF_ON_HOST)
  KOKKOS_IF_ON_HOST((Details::transpose_8x8_avx512(rows, columns);))
  KOKKOS_IF_ON_DEVICE((Details::transpose_8x8_loop(rows, columns);))
#elif defined(__AVX__) && defined(KOKKOS_IF_ON_HOST)
  KOKKOS_IF_ON_HOST((Details::transpose_8x8_avx(rows, columns);))
  KOKKOS_IF_ON_DEVICE((Details::transpose_8x8_loop(rows, columns);))
#else
  Details::transpose_8x8_loop(rows, columns);
#endif
}

}  // namespace pk
