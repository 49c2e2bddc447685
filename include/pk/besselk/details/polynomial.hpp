#pragma once
// Polynomials with constant coefficients, for the series of the BesselK paths.
#include <Kokkos_Core.hpp>

namespace pk::besselk::Details {

// c0 + z (c1 + z (c2 + ...)), Horner's rule written out so that the coefficients are
// constants in the code (a local table would be copied to the stack on every call).
template <class... Higher>
KOKKOS_INLINE_FUNCTION double horner(double z, double c0, Higher... higher) {
  if constexpr (sizeof...(higher) == 0) {
    return c0;
  } else {
    return c0 + z * horner(z, higher...);
  }
}

}  // namespace pk::besselk::Details
