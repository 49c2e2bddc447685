#pragma once
// Polynomials with constant coefficients, for the series of the BesselK paths.
#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

// c0 + z (c1 + z (c2 + ...)), Horner's rule written out so that the coefficients are
// constants in the code (a local table would be copied to the stack on every call). Each step
// is one fused multiply-add on a host whose target has one (FP_FAST_FMA): host code is built
// without contraction (src/CMakeLists.txt), and a multiply then an add waits on two roundings
// where the chain of steps is the whole of a polynomial's time; without it, a library fma
// would be a call a step. Device compilers contract c0 + z * rest themselves, and an explicit
// fma there made nvcc's K_nu kernels longer and slower (docs/besselk.md).
template <class... Higher>
KOKKOS_INLINE_FUNCTION double horner(double z, double c0, Higher... higher) {
  if constexpr (sizeof...(higher) == 0) {
    return c0;
  } else {
    const double rest = horner(z, higher...);
#if defined(FP_FAST_FMA) && defined(KOKKOS_IF_ON_HOST)
    KOKKOS_IF_ON_HOST((return ::fma(z, rest, c0);))
#endif
    return c0 + z * rest;
  }
}

}  // namespace pk::besselk::Details
