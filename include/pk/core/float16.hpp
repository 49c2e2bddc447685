#pragma once
// 16-bit floats as storage types on any space: a sign bit, ExponentBits exponent bits of the
// given Bias and 15 - ExponentBits mantissa bits, converting to and from float explicitly (as
// static_cast does), rounding to nearest even, with subnormals, infinity and NaN kept.
// pk::Binary16 (binary16.hpp) is IEEE binary16, Float16<5, 15>; pk::Compact16
// (compact16.hpp) is Float16<4, 14>. Both put their subnormals at multiples of 2^-24, which
// the conversions below rely on.
//
// The conversions are branch-free integer and float operations, so loops over them vectorise
// on CPUs. They assume the default rounding mode; flushing subnormal *inputs* to zero changes
// nothing (they round to zero anyway).
#include <pk/core/bits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk {

template <int ExponentBits, int Bias>
class Float16 {
  static constexpr int mantissa_bits = 15 - ExponentBits;
  static constexpr int dropped = 23 - mantissa_bits;  // of a float's mantissa
  static constexpr std::uint32_t top_exponent = (1u << ExponentBits) - 1;
  // Float bits: the rebias, the smallest normal, and the least magnitude that overflows.
  static constexpr std::uint32_t rebias = static_cast<std::uint32_t>(127 - Bias) << 23;
  static constexpr std::uint32_t smallest_normal = rebias + (1u << 23);
  static constexpr std::uint32_t overflow = rebias + (top_exponent << 23);
  static constexpr std::uint32_t infinity = top_exponent << mantissa_bits;
  static_assert(1 - Bias - mantissa_bits == -24, "subnormals are multiples of 2^-24");

 public:
  Float16() = default;
  KOKKOS_INLINE_FUNCTION explicit Float16(const float value) : bits_(encode(value)) {}
  KOKKOS_INLINE_FUNCTION explicit operator float() const { return decode(bits_); }

  KOKKOS_INLINE_FUNCTION std::uint16_t bits() const { return bits_; }
  KOKKOS_INLINE_FUNCTION static Float16 from_bits(const std::uint16_t bits) {
    Float16 h;
    h.bits_ = bits;
    return h;
  }

 private:
  KOKKOS_INLINE_FUNCTION static std::uint16_t encode(const float value) {
    const std::uint32_t x = bits_of(value), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    // Normal results: rebias the exponent and round the dropped mantissa bits to nearest
    // even; a carry may reach the exponent, or infinity.
    const std::uint32_t normal = (a - rebias + ((1u << (dropped - 1)) - 1) + ((a >> dropped) & 1u)) >> dropped;
    // Below the smallest normal the result is a multiple of 2^-24: adding 0.5f, whose ulp is
    // 2^-24, lets the float adder round it; the low bits are then the count of 2^-24 (a count
    // that reaches the smallest normal carries into its exponent field, as it should).
    const std::uint32_t subnormal = bits_of(float_of(a) + 0.5f) - 0x3f000000u;
    const std::uint32_t special =
        a > 0x7f800000u ? (infinity | (1u << (mantissa_bits - 1))) : infinity;  // NaN or overflow
    const std::uint32_t magnitude = a >= overflow ? special : (a < smallest_normal ? subnormal : normal);
    return static_cast<std::uint16_t>(sign | magnitude);
  }

  KOKKOS_INLINE_FUNCTION static float decode(const std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t shifted = static_cast<std::uint32_t>(h & 0x7fffu) << dropped;  // float position
    const std::uint32_t exponent = shifted & (top_exponent << 23);
    const std::uint32_t normal = shifted + rebias;
    const std::uint32_t special = shifted + ((255 - top_exponent) << 23);  // all-ones exponent: infinity or NaN
    // Zero and subnormals (m * 2^-24): as the smallest normal's binade (1 + m / 2^mantissa
    // bits), minus the smallest normal, exactly.
    const std::uint32_t subnormal = bits_of(float_of(shifted + smallest_normal) - float_of(smallest_normal));
    return float_of(sign | (exponent == (top_exponent << 23) ? special : (exponent == 0 ? subnormal : normal)));
  }

  std::uint16_t bits_;
};

}  // namespace pk
