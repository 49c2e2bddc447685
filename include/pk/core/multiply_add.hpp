#pragma once
// a * b + c as one fused multiply-add on a host whose target has one (FP_FAST_FMA for double,
// FP_FAST_FMAF for float): host code is built without contraction (src/CMakeLists.txt), so
// that every path through a computation rounds the same way, and an fma written out keeps that
// while it saves an operation and a rounding. Without a hardware fma the library's would be a
// call; then, and on devices, whose compilers contract a * b + c themselves (an explicit fma
// made nvcc's K_nu kernels longer and slower: docs/besselk.md), it is a multiply and an add.
#include <Kokkos_Core.hpp>

#include <cmath>
#include <type_traits>

namespace pk {

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real multiply_add(Real a, Real b, Real c) {
  static_assert(std::is_floating_point_v<Real>, "multiply_add: a floating-point type");
#if defined(KOKKOS_IF_ON_HOST)
  if constexpr (std::is_same_v<Real, float>) {
#if defined(FP_FAST_FMAF)
    KOKKOS_IF_ON_HOST((return ::fmaf(a, b, c);))
#endif
  } else if constexpr (std::is_same_v<Real, double>) {
#if defined(FP_FAST_FMA)
    KOKKOS_IF_ON_HOST((return ::fma(a, b, c);))
#endif
  }
#endif
  return a * b + c;
}

}  // namespace pk
