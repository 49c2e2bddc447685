#pragma once
// Polynomials with constant coefficients, for the series of the BesselK paths.
#include <pk/core/multiply_add.hpp>

#include <Kokkos_Core.hpp>

namespace pk::besselk::Details {

// c0 + z (c1 + z (c2 + ...)), Horner's rule written out so that the coefficients are
// constants in the code (a local table would be copied to the stack on every call). Each step
// is one fused multiply-add where the host has one (pk::multiply_add): a multiply then an add
// waits on two roundings where the chain of steps is the whole of a polynomial's time.
template <class... Higher>
KOKKOS_INLINE_FUNCTION double horner(double z, double c0, Higher... higher) {
  if constexpr (sizeof...(higher) == 0) {
    return c0;
  } else {
    return multiply_add(z, horner(z, higher...), c0);
  }
}

}  // namespace pk::besselk::Details
