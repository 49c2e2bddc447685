#pragma once
// A 16-bit float for stored numbers that never reach 2: 1 sign bit, 4 exponent bits and 11
// mantissa bits, one more than IEEE binary16 (pk::Binary16), which spends that bit on range
// up to 65504. Normal numbers run from 2^-13 to just under 2 with a relative rounding step of
// 2^-12; below 2^-13 they are subnormal, multiples of 2^-24 as binary16's are. The largest
// exponent holds infinity and NaN, so that an overflowing or broken value still shows.
// FluidX3D stores LBM populations in such a format (its FP16C): here it serves the LBM
// populations stored minus their weights, |g| < 1 (pk::lbm, precision "fp16c").
//
//   pk::Compact16 c(0.1f);           // 0x54cd
//   float back = float(c);           // 0.100006104f (binary16: 0.0999755859f)
//
// Conversions round to nearest even, with integer and float operations only (no table, no
// branch), the same on every space.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace pk {

class Compact16 {
 public:
  Compact16() = default;
  KOKKOS_INLINE_FUNCTION explicit Compact16(const float value) : bits_(encode(value)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return decode(bits_); }

  KOKKOS_INLINE_FUNCTION std::uint16_t bits() const { return bits_; }
  KOKKOS_INLINE_FUNCTION static Compact16 from_bits(const std::uint16_t bits) {
    Compact16 c;
    c.bits_ = bits;
    return c;
  }

  // Float exponent (bias 127) of the exponent field 1, the smallest normal: 2^-13.
  static constexpr std::uint32_t smallest_normal_exponent = 114;

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
    // Normal results: rebias the exponent (127 -> 14, i.e. subtract 113 << 23) and round the
    // 12 dropped mantissa bits to nearest even; a carry may reach the exponent, or infinity.
    const std::uint32_t normal = (a - 0x38800000u + 0x07ffu + ((a >> 12) & 1u)) >> 12;
    // Below 2^-13 the result is a multiple of 2^-24: adding 0.5f, whose ulp is 2^-24, lets the
    // float adder round it, and the low bits are the count of 2^-24 (2048 rounds up to 2^-13).
    const std::uint32_t subnormal = bits_of(float_of(a) + 0.5f) - 0x3f000000u;
    const std::uint32_t special = a > 0x7f800000u ? 0x7c00u : 0x7800u;  // NaN (quiet) or overflow to infinity
    const std::uint32_t magnitude =
        a >= 0x40000000u ? special : (a < (smallest_normal_exponent << 23) ? subnormal : normal);
    return static_cast<std::uint16_t>(sign | magnitude);
  }

  KOKKOS_INLINE_FUNCTION static float decode(const std::uint16_t c) {
    const std::uint32_t sign = static_cast<std::uint32_t>(c & 0x8000u) << 16;
    const std::uint32_t shifted = static_cast<std::uint32_t>(c & 0x7fffu) << 12;  // float position, bias 14
    const std::uint32_t exponent = shifted & 0x07800000u;
    const std::uint32_t normal = shifted + 0x38800000u;   // rebias 14 -> 127
    const std::uint32_t special = shifted + 0x78000000u;  // all-ones exponent: infinity or NaN
    // Zero and subnormals (m * 2^-24): as the normal 2^-13 (1 + m / 2048), minus 2^-13, exactly.
    const std::uint32_t smallest_normal = smallest_normal_exponent << 23;
    const std::uint32_t subnormal = bits_of(float_of(shifted + smallest_normal) - float_of(smallest_normal));
    return float_of(sign | (exponent == 0x07800000u ? special : (exponent == 0 ? subnormal : normal)));
  }

  std::uint16_t bits_;
};

}  // namespace pk
