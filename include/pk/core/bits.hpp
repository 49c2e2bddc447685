#pragma once
// A float's or a double's bits as the unsigned integer of its size, and back (C++20's
// std::bit_cast; Kokkos::bit_cast is not in the fallback Kokkos 3.4.01), on any space.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>

namespace pk {

KOKKOS_INLINE_FUNCTION std::uint32_t bits_of(const float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(const double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

KOKKOS_INLINE_FUNCTION float float_of(const std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

KOKKOS_INLINE_FUNCTION double double_of(const std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

}  // namespace pk
