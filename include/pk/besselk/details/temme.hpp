#pragma once
// Small-x path of K_nu: Temme's series for K_mu and K_{mu+1}, |mu| <= 1/2, then the
// forward recurrence in the order (Campbell) up to nu. Device-callable; no allocation.
#include <pk/besselk/details/compensated.hpp>
#include <pk/besselk/details/polynomial.hpp>
#include <pk/core/bits.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace pk::besselk::Details {

// 1 / Gamma(1 + z) = sum_k c_k z^k (Taylor coefficients from mpmath, 40 digits, rounded;
// with |z| <= 1/2 the 23 terms reach 1e-20) splits into Temme's two functions:
//   Gamma_1(mu) = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu) = -(c_1 + c_3 mu^2 + c_5 mu^4 + ...),
//   Gamma_2(mu) = (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2 = 1 + c_2 mu^2 + c_4 mu^4 + ...,
// each summed directly (no cancellation as mu -> 0), and 1/Gamma(1 -+ mu) = Gamma_2 +- mu Gamma_1.
// c_1 is Euler's gamma, carried to 1e-32.
KOKKOS_INLINE_FUNCTION Compensated temme_gamma1(double mu) {
  constexpr double euler = 0.57721566490153286061;
  constexpr double euler_lo = -4.9429151524306451002e-18;  // gamma - (double)gamma
  const double mu2 = mu * mu;
  const double rest = horner(mu2, -0.042002635034095235529, -0.042197734555544336748, 0.0072189432466630995424,
                             -0.00021524167411495097282, -0.000020134854780788238656, 0.0000011330272319816958824,
                             0.0000000061160951044814158179, -0.0000000011812745704870201446,
                             0.000000000007782263439905071254, 0.0000000000005100370287454475979);
  const Compensated sum = add(two_sum(euler, mu2 * rest), euler_lo);
  return {-sum.hi, -sum.lo};
}

KOKKOS_INLINE_FUNCTION Compensated temme_gamma2(double mu) {
  const double mu2 = mu * mu;
  const double rest =
      horner(mu2, -0.65587807152025388108, 0.1665386113822914895, -0.0096219715278769735621, -0.0011651675918590651121,
             0.00012805028238811618615, -0.0000012504934821426706573, -0.00000020563384169776071035,
             0.0000000050020076444692229301, 0.00000000010434267116911005105, -0.0000000000036968056186422057082,
             -0.000000000000020583260535665067832);
  return two_sum(1.0, mu2 * rest);
}

// cosh(s) and sinh(s) / s as 1 + (small part) for |s| < 1, where f_0 below needs the small
// part to its last bits (Taylor series, coefficients 1 / (2k)! and 1 / (2k + 1)!, rounded;
// 10 and 9 terms leave less than 1e-19); from e^s above, where f_0 has no cancellation.
KOKKOS_INLINE_FUNCTION Compensated cosh_compensated(double s, double exp_s) {
  if (!(::fabs(s) < 1)) return {0.5 * (exp_s + 1 / exp_s), 0.0};
  const double s2 = s * s;
  return two_sum(
      1.0, s2 * horner(s2, 0.5, 1.0 / 24, 1.0 / 720, 2.48015873015873e-05, 2.755731922398589e-07, 2.08767569878681e-09,
                       1.1470745597729725e-11, 4.779477332387385e-14, 1.5619206968586225e-16, 4.110317623312165e-19));
}
KOKKOS_INLINE_FUNCTION Compensated sinhc_compensated(double s, double exp_s) {
  if (!(::fabs(s) < 1)) return {0.5 * (exp_s - 1 / exp_s) / s, 0.0};
  const double s2 = s * s;
  return two_sum(
      1.0, s2 * horner(s2, 1.0 / 6, 1.0 / 120, 1.0 / 5040, 2.7557319223985893e-06, 2.505210838544172e-08,
                       1.6059043836821613e-10, 7.647163731819816e-13, 2.8114572543455206e-15, 8.22063524662433e-18));
}

struct TemmePair {
  double k_mu;   // K_mu(x)
  double k_mu1;  // K_{mu+1}(x); +inf where it overflows (x below 1e-205 at mu = 1/2)
  double ratio;  // K_{mu+1}(x) / K_mu(x)
};

// v where mask is all ones, +0 where it is 0.
KOKKOS_INLINE_FUNCTION double masked(double v, std::uint64_t mask) { return pk::double_of(pk::bits_of(v) & mask); }

// Temme (1975), eqs. for |mu| <= 1/2 with c_k = (x^2/4)^k / k!:
//   K_mu(x)     = sum_k c_k f_k,
//   K_{mu+1}(x) = (2/x) sum_k c_k (p_k - k f_k),
//   f_0 = mu pi / sin(mu pi) [Gamma_1(mu) cosh(s) + Gamma_2(mu) ln(2/x) sinh(s)/s], s = mu ln(2/x),
//   p_0 = (x/2)^-mu Gamma(1+mu) / 2,  q_0 = (x/2)^mu Gamma(1-mu) / 2,
//   f_k = (k f_{k-1} + p_{k-1} + q_{k-1}) / (k^2 - mu^2), p_k = p_{k-1} / (k - mu),
//   q_k = q_{k-1} / (k + mu). For 0 < x <= 1 (series_limit) at most about 10 terms reach 1e-17.
// The series at `lanes` points side by side, (mu[l], x[l]) in lane l: on a host core each step
// but the library's log, exp and sin runs across the lanes in SIMD registers (a term's four
// divisions, most of the path's time point by point, then share an instruction). A lane takes
// the operations of the one-lane form in its order, so its bits do not depend on its
// neighbours; once its sum has converged it adds zeros, which leave the sums as they are,
// until every lane's has.
template <int lanes>
KOKKOS_INLINE_FUNCTION void temme_series(const double (&mu)[lanes], const double (&x)[lanes],
                                         TemmePair (&pair)[lanes]) {
  // s = mu ln(2/x) enters through e^s, cosh s and sinh s, which turn an absolute error in s
  // into a relative one in K: a plain log would leave |s| eps (1e-15 at x = 1e-5). So
  // ln(2/x) gets one Newton step (L + (2/x) e^-L - 1, with 2/x carried to its last bits)
  // and s its low part; the functions of s take a first-order correction in it.
  Compensated log_two_over_x[lanes];
  double s[lanes], s_lo[lanes], exp_s[lanes], sin_mu_pi[lanes];
  for (int l = 0; l < lanes; ++l) {  // the library's functions, a lane at a time
    const double two_over_x = 2 / x[l];
    const double two_over_x_lo = ::fma(-two_over_x, x[l], 2.0) / x[l];
    const double log_hi = ::log(two_over_x);
    const double back = ::exp(-log_hi);
    log_two_over_x[l] = quick_two_sum(log_hi, ::fma(two_over_x, back, -1.0) + two_over_x_lo * back);
    s[l] = mu[l] * log_two_over_x[l].hi;
    s_lo[l] = ::fma(mu[l], log_two_over_x[l].hi, -s[l]) + mu[l] * log_two_over_x[l].lo;
    exp_s[l] = ::exp(s[l]);
    sin_mu_pi[l] = ::sin(pi * mu[l]);
  }
  double f[lanes], p[lanes], q[lanes], c[lanes], quarter_x2[lanes];
  CompensatedSum k_mu[lanes], k_mu1_sum[lanes];
  for (int l = 0; l < lanes; ++l) {
    // f_0 = mu pi / sin(mu pi) [Gamma_1 cosh(s) + Gamma_2 ln(2/x) sinh(s)/s]: near x = 1 and
    // mu = 0 its two terms (about -0.58 and 0.69) cancel to 0.12, so they are formed in
    // double-double.
    const Compensated cosh_s = cosh_compensated(s[l], exp_s[l]), sinhc_s = sinhc_compensated(s[l], exp_s[l]);
    // First-order terms in s_lo: d cosh = sinh ds, d (sinhc(s) L) = L ds (cosh - sinhc) / s.
    const double d_cosh = sinhc_s.hi * s[l] * s_lo[l];
    const double d_sinhc_log = s[l] != 0 ? log_two_over_x[l].hi * s_lo[l] * (cosh_s.hi - sinhc_s.hi) / s[l] : 0.0;
    const Compensated gamma1 = temme_gamma1(mu[l]), gamma2 = temme_gamma2(mu[l]);
    const Compensated first = multiply(gamma1, add(cosh_s, d_cosh));
    const Compensated second = multiply(gamma2, add(multiply(sinhc_s, log_two_over_x[l]), d_sinhc_log));
    const double mu_pi_over_sin = (mu[l] == 0) ? 1.0 : (pi * mu[l]) / sin_mu_pi[l];
    const Compensated f0 = multiply(add(first, second.hi), mu_pi_over_sin);
    const Compensated f0_full = add(f0, second.lo * mu_pi_over_sin);
    const double two_over_x_to_mu = exp_s[l] + exp_s[l] * s_lo[l];  // (x/2)^-mu
    p[l] = 0.5 * two_over_x_to_mu / ::fma(-mu[l], gamma1.hi, gamma2.hi);
    q[l] = 0.5 / (two_over_x_to_mu * ::fma(mu[l], gamma1.hi, gamma2.hi));
    quarter_x2[l] = 0.25 * x[l] * x[l];
    f[l] = f0_full.hi;
    c[l] = 1;
    k_mu[l] = {f0_full.hi, f0_full.lo};  // the k = 0 terms
    k_mu1_sum[l] = {p[l]};
  }
  // All ones while a lane's sum takes its terms, 0 once it has converged; a term is ANDed
  // with it. `converged ? 0 : term` is the same value, but g++ makes it a branch around the
  // term's multiply, which it cannot then run across lanes without masked arithmetic (AVX2).
  std::uint64_t live[lanes];
  for (int l = 0; l < lanes; ++l) live[l] = ~std::uint64_t{0};
  for (int k = 1; k <= 60; ++k) {
#pragma omp simd
    for (int l = 0; l < lanes; ++l) {
      f[l] = (k * f[l] + p[l] + q[l]) / (k * k - mu[l] * mu[l]);
      p[l] /= k - mu[l];
      q[l] /= k + mu[l];
      c[l] *= quarter_x2[l] / k;
      const double term = masked(c[l] * f[l], live[l]);
      k_mu[l].add(term);
      k_mu1_sum[l].add(masked(c[l] * (p[l] - k * f[l]), live[l]));
      live[l] = ::fabs(term) < 1e-17 * ::fabs(k_mu[l].sum) ? 0 : live[l];
    }
    bool all_converged = true;
    for (int l = 0; l < lanes; ++l) all_converged = all_converged && live[l] == 0;
    if (all_converged) break;
  }
  for (int l = 0; l < lanes; ++l) {
    const double k_mu_value = k_mu[l].value().hi, k_mu1_value = k_mu1_sum[l].value().hi;
    pair[l] = {k_mu_value, 2 * k_mu1_value / x[l], 2 * k_mu1_value / (x[l] * k_mu_value)};
  }
}

// K_{mu + steps}(x), steps >= 1, from K_mu(x), K_{mu+1}(x) and their ratio r_0 by the forward
// recurrence K_{m+1} = (2 m / x) K_m + K_{m-1} (Campbell 1980), which is stable for K at every
// x. K grows with the order, so the recurrence overflows only where K_nu itself does.
// There, for log K, and where K_mu underflows (x > ~700), it runs on the ratios
// r_m = K_{m+1} / K_m = 2 m / x + 1 / r_{m-1} instead, their product kept as a mantissa and a
// binary exponent (at tiny x one ratio can reach 1e302 while log K stays finite).
template <Wanted wanted>
KOKKOS_INLINE_FUNCTION LogAndValue recur_in_order(LogAndValue k_mu, double k_mu1, double ratio, double mu, double x,
                                                  int steps) {
  const bool scaled = !(k_mu.value > 1e-300);  // then log K_mu is added to the ratios' log
  if (!scaled) {
    double previous = k_mu.value, current = k_mu1;
    // 2 (mu + i) / x rounds once per step; a rounded 2 / x would bias every step alike.
    for (int i = 1; i < steps; ++i) {
      const double next = 2 * (mu + i) / x * current + previous;
      previous = current;
      current = next;
    }
    if (wanted == Wanted::value) return {NAN, current};  // +inf where K exceeds DBL_MAX, as the true value does
    if (current <= 1.7976931348623157e308) return {::log(current), current};
  }
  double mantissa = scaled ? 1.0 : k_mu.value;
  int exponent = 0;
  for (int i = 0; i < steps; ++i) {
    if (i > 0) ratio = 2 * (mu + i) / x + 1 / ratio;
    int e = 0;
    mantissa *= ::frexp(ratio, &e);  // exact: ratio = m 2^e, 1/2 <= m < 1
    exponent += e;
    mantissa = ::frexp(mantissa, &e);
    exponent += e;
  }
  constexpr double ln2 = 0.693147180559945309417232121458176568;
  double log_value = ::log(mantissa) + exponent * ln2;
  if (scaled) {  // log K_mu is large there: one rounding at its scale, with its low part
    const Compensated sum = two_sum(k_mu.log_value, log_value);
    log_value = sum.hi + (sum.lo + k_mu.log_lo);
  }
  return {log_value, scaled ? ::exp(log_value) : INFINITY};
}

// K_nu(x) for 0 < x <= 1 (series_limit) and nu >= 0: Temme for mu = nu - round(nu), then
// the recurrence. K_mu >= K_0(1) > 0.4 there, so the recurrence never needs log K_mu.
// At `lanes` points (nu[l], x[l]) side by side, each with the bits of the one-point form.
template <Wanted wanted, int lanes>
KOKKOS_INLINE_FUNCTION void bessel_k_small_x(const double (&nu)[lanes], const double (&x)[lanes],
                                             LogAndValue (&k)[lanes]) {
  int steps[lanes];
  double mu[lanes];
  for (int l = 0; l < lanes; ++l) {
    steps[l] = static_cast<int>(nu[l] + 0.5);
    mu[l] = nu[l] - steps[l];
  }
  TemmePair pair[lanes];
  temme_series<lanes>(mu, x, pair);
  for (int l = 0; l < lanes; ++l)
    k[l] = steps[l] == 0
               ? LogAndValue{wanted == Wanted::value ? NAN : ::log(pair[l].k_mu), pair[l].k_mu}
               : recur_in_order<wanted>({NAN, pair[l].k_mu}, pair[l].k_mu1, pair[l].ratio, mu[l], x[l], steps[l]);
}
template <Wanted wanted>
KOKKOS_INLINE_FUNCTION LogAndValue bessel_k_small_x(double nu, double x) {
  const double nus[1] = {nu}, xs[1] = {x};
  LogAndValue k[1];
  bessel_k_small_x<wanted, 1>(nus, xs, k);
  return k[0];
}

}  // namespace pk::besselk::Details
