#pragma once
// IEEE 754 binary16 (half precision) as a storage type on any space: 16 bits that convert
// to and from float, rounding to nearest even, with subnormals, infinities and NaN kept.
//
//   pk::Binary16 h(0.1f);            // 0x2e66
//   float back = float(h);           // 0.0999755859375f
//
// Why not a library type: Kokkos::Experimental::half_t is a float in builds without a GPU
// backend, CUDA's __half converts through branchy software on the host, and nvcc cannot
// compile the compiler's _Float16 in __host__ __device__ code. The conversions below are
// branch-free integer and float operations, so loops over them vectorise on CPUs.
// They assume the default rounding mode; flushing subnormal *inputs* to zero changes
// nothing (they round to zero anyway).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__F16C__) && defined(KOKKOS_IF_ON_HOST)  // Kokkos >= 3.6; the fallback 3.4.01 takes the loop below
#include <immintrin.h>
#endif

namespace pk {

class Binary16 {
 public:
  Binary16() = default;
  KOKKOS_INLINE_FUNCTION explicit Binary16(const float value) : bits_(encode(value)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return decode(bits_); }

  KOKKOS_INLINE_FUNCTION std::uint16_t bits() const { return bits_; }
  KOKKOS_INLINE_FUNCTION static Binary16 from_bits(const std::uint16_t bits) {
    Binary16 h;
    h.bits_ = bits;
    return h;
  }

 private:
  KOKKOS_INLINE_FUNCTION static std::uint32_t bits_of(const float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  }
  KOKKOS_INLINE_FUNCTION static float float_of(const std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }

  KOKKOS_INLINE_FUNCTION static std::uint16_t encode(const float value) {
    const std::uint32_t x = bits_of(value), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    // Normal results: rebias the exponent (127 -> 15, i.e. subtract 112 << 23) and round the
    // 13 dropped mantissa bits to nearest even; a carry may reach the exponent, or infinity.
    const std::uint32_t normal = (a - 0x38000000u + 0x0fffu + ((a >> 13) & 1u)) >> 13;
    // Below 2^-14 the result is subnormal, a multiple of 2^-24: adding 0.5f, whose ulp is
    // 2^-24, lets the float adder round it; the low bits are then the half's mantissa.
    const std::uint32_t subnormal = bits_of(float_of(a) + 0.5f) - 0x3f000000u;
    const std::uint32_t special = a > 0x7f800000u ? 0x7e00u : 0x7c00u;  // NaN (quiet) or overflow to infinity
    const std::uint32_t magnitude = a >= 0x47800000u ? special : (a < 0x38800000u ? subnormal : normal);
    return static_cast<std::uint16_t>(sign | magnitude);
  }

  KOKKOS_INLINE_FUNCTION static float decode(const std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t shifted = static_cast<std::uint32_t>(h & 0x7fffu) << 13;  // float position, bias 15
    const std::uint32_t exponent = shifted & 0x0f800000u;
    const std::uint32_t normal = shifted + 0x38000000u;   // rebias 15 -> 127
    const std::uint32_t special = shifted + 0x70000000u;  // all-ones exponent: infinity or NaN
    // Zero and subnormals (m * 2^-24): as the normal 2^-14 (1 + m / 1024), minus 2^-14, exactly.
    const std::uint32_t subnormal = bits_of(float_of(shifted + 0x38800000u) - float_of(0x38800000u));
    return float_of(sign | (exponent == 0x0f800000u ? special : (exponent == 0 ? subnormal : normal)));
  }

  std::uint16_t bits_;
};

// to[l] = To(from[l]) for l < count, as static_cast does. Between Binary16 and float on a host
// compiled with F16C (x86-64-v3 and up), eight at a time by the hardware's conversions
// (vcvtph2ps / vcvtps2ph, rounding to nearest even like Binary16): the branch-free
// conversions above take a dozen vector instructions each way, which made fp16 loops of the
// LBM rows traversal cost more than their collision. Results equal Binary16's, bit for bit,
// except NaN payloads (the hardware keeps them; Binary16 gives 0x7e00).
template <int count, class From, class To>
KOKKOS_FORCEINLINE_FUNCTION void convert(const From* from, To* to) {
  int l = 0;
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
