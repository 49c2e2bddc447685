#pragma once
// Polynomials with constant coefficients, for the series of the BesselK paths.
#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

// c0 + z (c1 + z (c2 + ...)), Horner's rule written out so that the coefficients are
// constants in the code (a local table would be copied to the stack on every call). Each step
// is one fused multiply-add where the target has one (FP_FAST_FMA): host code is built
// without contraction (src/CMakeLists.txt), and a multiply then an add waits on two roundings
// where the chain of steps is the whole of a polynomial's time; without it, a library fma
// would be a call a step.
template <class... Higher>
KOKKOS_INLINE_FUNCTION double horner(double z, double c0, Higher... higher) {
  if constexpr (sizeof...(higher) == 0) {
    return c0;
  } else {
#ifdef FP_FAST_FMA
    return ::fma(z, horner(z, higher...), c0);
#else
    return c0 + z * horner(z, higher...);
#endif
  }
}

}  // namespace pk::besselk::Details
