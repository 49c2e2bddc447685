#pragma once
// Large-x path of K_nu: Hankel's expansion (DLMF 10.40.2)
//   K_nu(x) ~ sqrt(pi / (2x)) e^{-x} sum_k a_k(nu) / x^k,
//   a_k / a_{k-1} = (4 nu^2 - (2k - 1)^2) / (8 k).
// Once k > nu - 1/2 the error is bounded by the first neglected term (DLMF 10.40(ii)).
// The sum and sqrt(pi / (2x)) are carried in double-double (compensated.hpp).
#include <pk/besselk/details/compensated.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

constexpr int asymptotic_max_terms = 100;

// Returns NaN when the terms have not fallen below 1e-17 of the sum after
// asymptotic_max_terms (never for x >= 25 and nu <= 50, the only place it is used).
template <Wanted wanted>
KOKKOS_INLINE_FUNCTION LogAndValue bessel_k_asymptotic(double nu, double x) {
  const double four_nu2 = 4 * nu * nu;
  double term = 1;
  CompensatedSum sum{1.0};
  bool converged = false;
  for (int k = 1; k <= asymptotic_max_terms; ++k) {
    const double odd = 2 * k - 1;
    term *= (four_nu2 - odd * odd) / (8 * k * x);
    sum.add(term);
    if (::fabs(term) <= 1e-17 * ::fabs(sum.sum) && k > nu - 0.5) {
      converged = true;
      break;
    }
  }
  if (!converged) return {NAN, NAN};
  return exp_minus_x_times<wanted>(x, multiply(sqrt_pi_over(2 * x), sum.value()));
}

}  // namespace pk::besselk::Details
