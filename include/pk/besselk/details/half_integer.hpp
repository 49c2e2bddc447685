#pragma once
// K_nu at half-integer orders nu = n + 1/2 in closed form (DLMF 10.49.12):
//   K_{n+1/2}(x) = sqrt(pi / (2x)) e^{-x} sum_{k=0}^{n} a_k (2x)^{-k},
//   a_k = (n + k)! / (k! (n - k)!),
// a finite sum of positive terms with integer coefficients, so every x > 0 is covered with
// no series or quadrature error. These are the Matern orders most used (1/2: exponential,
// 3/2, 5/2), and the path costs one exp.
#include <pk/besselk/details/compensated.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

// Up to n = 5 the coefficients (at most 10!/5! = 30240) and their recurrence are exact in
// double; above it the other paths take over.
constexpr int half_integer_max_n = 5;

KOKKOS_INLINE_FUNCTION bool is_half_integer_order(double nu) {
  return nu <= half_integer_max_n + 0.5 && nu - ::floor(nu) == 0.5;
}

// K_{n+1/2}(x) and its log for 0 <= n <= half_integer_max_n and x > 0.
template <Wanted wanted>
KOKKOS_INLINE_FUNCTION LogAndValue bessel_k_half_integer(int n, double x) {
  double a[half_integer_max_n + 1];
  a[0] = 1;
  for (int k = 0; k < n; ++k) a[k + 1] = a[k] * (n - k) * (n + k + 1) / (k + 1);
  const double z = 2 * x;
  if (z >= 1) {  // S = sum a_k w^k with w = 1/z <= 1, by Horner in double-double
    const Compensated w = quick_two_sum(1 / z, ::fma(-(1 / z), z, 1.0) / z);
    Compensated s{a[n], 0.0};
    for (int k = n - 1; k >= 0; --k) s = add(multiply(s, w), a[k]);
    return exp_minus_x_times<wanted>(x, multiply(sqrt_pi_over(z), s));
  }
  // z < 1: S = T(z) / z^n with T(z) = sum a_k z^(n-k) (z is exact, so no 1/z rounding).
  Compensated t{a[0], 0.0}, power{1.0, 0.0};
  for (int k = 1; k <= n; ++k) {
    t = add(multiply(t, z), a[k]);
    power = multiply(power, z);
  }
  if (power.hi > 1e-290) {
    const Compensated r = multiply(sqrt_pi_over(z), divide(t, power));
    if (r.hi <= 1.7976931348623157e308) return exp_minus_x_times<wanted>(x, r);
  }
  // K overflows (x below about 1e-60 at n = 5): its log from the pieces.
  return {0.5 * ::log(pi / z) + ::log(t.hi) - n * ::log(z) - x, INFINITY};
}

}  // namespace pk::besselk::Details
