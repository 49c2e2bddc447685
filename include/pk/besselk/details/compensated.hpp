#pragma once
// Double-double pieces (Dekker 1971, with fma) where K_nu must keep its last bits: the
// closed-form paths K = e^{-x} sqrt(pi / (2x)) S(x), which carried this way round only twice
// in K (exp and the last product) instead of five or six times, and the start of Temme's
// series, whose two terms cancel near x = 1.
#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

constexpr double pi = 3.141592653589793238462643383279502884;

// What a path computes: K alone (bessel_k), or log K as well (evaluate). On the host every
// libm call stays in the code even when its result is unused (it may set errno), so the
// paths leave out the logs that were not asked for.
enum class Wanted { value, log_and_value };

struct LogAndValue {
  double log_value;  // NaN where only the value was wanted
  double value;
  double log_lo = 0;  // log K - log_value where a path knows it (for the recurrence to add)
};

struct Compensated {
  double hi, lo;  // value hi + lo, |lo| <= ulp(hi) / 2
};

KOKKOS_INLINE_FUNCTION Compensated two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

KOKKOS_INLINE_FUNCTION Compensated quick_two_sum(double a, double b) {  // needs |a| >= |b|
  const double s = a + b;
  return {s, b - (s - a)};
}

KOKKOS_INLINE_FUNCTION Compensated add(Compensated a, double b) {
  const Compensated s = two_sum(a.hi, b);
  return quick_two_sum(s.hi, s.lo + a.lo);
}

// A running sum that keeps the rounding error of each addition apart (Ogita, Rump and
// Oishi's Sum2): as accurate as adding in double-double, but a step waits only for the
// previous plain sum, not for the error to be folded back in.
struct CompensatedSum {
  double sum, error = 0;
  KOKKOS_INLINE_FUNCTION void add(double term) {
    const Compensated s = two_sum(sum, term);
    sum = s.hi;
    error += s.lo;
  }
  KOKKOS_INLINE_FUNCTION Compensated value() const { return quick_two_sum(sum, error); }
};

KOKKOS_INLINE_FUNCTION Compensated multiply(Compensated a, Compensated b) {
  const double p = a.hi * b.hi;
  const double e = ::fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
  return quick_two_sum(p, e);
}

KOKKOS_INLINE_FUNCTION Compensated multiply(Compensated a, double b) { return multiply(a, Compensated{b, 0.0}); }

KOKKOS_INLINE_FUNCTION Compensated divide(Compensated a, Compensated b) {
  const double q = a.hi / b.hi;
  // Remainder a - q b, exact to the last bits of a, then one correction step.
  const Compensated qb = multiply(b, q);
  const double r = ((a.hi - qb.hi) - qb.lo) + a.lo;
  return quick_two_sum(q, r / b.hi);
}

// sqrt(pi / z) for z > 0.
KOKKOS_INLINE_FUNCTION Compensated sqrt_pi_over(double z) {
  constexpr double pi_lo = 1.2246467991473531772e-16;  // pi - (double)pi
  const double q = pi / z;
  const double q_lo = (::fma(-q, z, pi) + pi_lo) / z;
  const double s = ::sqrt(q);
  return quick_two_sum(s, (::fma(-s, s, q) + q_lo) / (2 * s));
}

// K = e^{-x} R (R finite) with one rounding, and log K with -x added last so that a large
// log K rounds once.
template <Wanted wanted>
KOKKOS_INLINE_FUNCTION LogAndValue exp_minus_x_times(double x, Compensated r) {
  const double e = ::exp(-x);
  const double value = ::fma(e, r.hi, e * r.lo);
  if constexpr (wanted == Wanted::value) return {NAN, value};
  const Compensated log_k = two_sum(-x, ::log(r.hi) + r.lo / r.hi);
  return {log_k.hi, value, log_k.lo};
}

}  // namespace pk::besselk::Details
