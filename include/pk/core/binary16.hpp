#pragma once
// IEEE 754 binary16 (half precision) as a storage type on any space: 16 bits that convert
// to and from float, rounding to nearest even, with subnormals, infinities and NaN kept.
//
//   pk::Binary16 h(0.1f);            // 0x2e66
//   float back = float(h);           // 0.0999755859375f
//
// Why not a library type: Kokkos::Experimental::half_t is a float in builds without a GPU
// backend, CUDA's __half converts through branchy software on the host, and nvcc cannot
// compile the compiler's _Float16 in __host__ __device__ code. Float16 (float16.hpp)
// converts with branch-free integer and float operations.
#include <pk/core/float16.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#if defined(__F16C__) && defined(KOKKOS_IF_ON_HOST)  // Kokkos >= 3.6; the fallback 3.4.01 takes the loop below
#include <immintrin.h>
#endif

namespace pk {

using Binary16 = Float16<5, 15>;

// to[l] = To(from[l]) for l < count, as static_cast does. Between Binary16 and float on a host
// compiled with F16C (x86-64-v3 and up), eight at a time by the hardware's conversions
// (vcvtph2ps / vcvtps2ph, rounding to nearest even like Binary16), sixteen at a time with
// AVX-512 (half the instructions, docs/lbm.md): Float16's branch-free conversions take a
// dozen vector instructions each way, which made fp16 loops of the LBM rows traversal cost
// more than their collision. Results equal Binary16's, bit for bit, except NaN payloads (the
// hardware keeps them; Binary16 gives 0x7e00).
template <int count, class From, class To>
KOKKOS_FORCEINLINE_FUNCTION void convert(const From* from, To* to) {
  int l = 0;
#if defined(__AVX512F__) && defined(KOKKOS_IF_ON_HOST)
  if constexpr (std::is_same_v<From, Binary16> && std::is_same_v<To, float>) {
    KOKKOS_IF_ON_HOST((for (; l + 16 <= count; l += 16) _mm512_storeu_ps(
                           to + l, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + l))));))
  }
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Binary16>) {
    KOKKOS_IF_ON_HOST((for (; l + 16 <= count; l += 16) _mm256_storeu_si256(
                           reinterpret_cast<__m256i*>(to + l),
                           _mm512_cvtps_ph(_mm512_loadu_ps(from + l), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));))
  }
#endif
#if defined(__F16C__) && defined(KOKKOS_IF_ON_HOST)  // Kokkos >= 3.6; the fallback 3.4.01 takes the loop below
  if constexpr (std::is_same_v<From, Binary16> && std::is_same_v<To, float>) {
    KOKKOS_IF_ON_HOST((for (; l + 8 <= count; l += 8) _mm256_storeu_ps(
                           to + l, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + l))));))
  }
  if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Binary16>) {
    KOKKOS_IF_ON_HOST((for (; l + 8 <= count; l += 8) _mm_storeu_si128(
                           reinterpret_cast<__m128i*>(to + l),
                           _mm256_cvtps_ph(_mm256_loadu_ps(from + l), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));))
  }
#endif
  for (; l < count; ++l) to[l] = static_cast<To>(from[l]);
}

}  // namespace pk
