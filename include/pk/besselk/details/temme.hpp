#pragma once
// Small-x path of K_nu: Temme's series for K_mu and K_{mu+1}, |mu| <= 1/2, then the
// forward recurrence in the order (Campbell) up to nu. Device-callable; no allocation.
#include <pk/besselk/details/compensated.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

// 1 / Gamma(1 + z) = sum_k c_k z^k (Taylor coefficients from mpmath, 40 digits, rounded);
// with |z| <= 1/2 the 23 terms reach 1e-20.
KOKKOS_INLINE_FUNCTION double reciprocal_gamma_one_plus(double z) {
  constexpr double c[23] = {1.0,
                            0.57721566490153286061,
                            -0.65587807152025388108,
                            -0.042002635034095235529,
                            0.1665386113822914895,
                            -0.042197734555544336748,
                            -0.0096219715278769735621,
                            0.0072189432466630995424,
                            -0.0011651675918590651121,
                            -0.00021524167411495097282,
                            0.00012805028238811618615,
                            -0.000020134854780788238656,
                            -0.0000012504934821426706573,
                            0.0000011330272319816958824,
                            -0.00000020563384169776071035,
                            0.0000000061160951044814158179,
                            0.0000000050020076444692229301,
                            -0.0000000011812745704870201446,
                            0.00000000010434267116911005105,
                            0.000000000007782263439905071254,
                            -0.0000000000036968056186422057082,
                            0.0000000000005100370287454475979,
                            -0.000000000000020583260535665067832};
  double sum = c[22];
  for (int k = 21; k >= 0; --k) sum = sum * z + c[k];
  return sum;
}

// Temme's Gamma_1(mu) = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu) = -(gamma + mu^2 (...)):
// the odd part of the series above, summed directly so there is no cancellation as mu -> 0,
// with Euler's gamma carried to 1e-32.
KOKKOS_INLINE_FUNCTION Compensated temme_gamma1(double mu) {
  constexpr double euler_lo = -4.9429151524306451002e-18;  // gamma - (double)gamma
  constexpr double odd[11] = {0.57721566490153286061,      -0.042002635034095235529,   -0.042197734555544336748,
                              0.0072189432466630995424,    -0.00021524167411495097282, -0.000020134854780788238656,
                              0.0000011330272319816958824, 0.0000000061160951044814158179,
                              -0.0000000011812745704870201446, 0.000000000007782263439905071254,
                              0.0000000000005100370287454475979};
  const double mu2 = mu * mu;
  double rest = odd[10];
  for (int k = 9; k >= 1; --k) rest = rest * mu2 + odd[k];
  const Compensated sum = add(two_sum(odd[0], mu2 * rest), euler_lo);
  return {-sum.hi, -sum.lo};
}

// Temme's Gamma_2(mu) = (1/Gamma(1-mu) + 1/Gamma(1+mu)) / 2 = 1 + mu^2 (...), the even part.
KOKKOS_INLINE_FUNCTION Compensated temme_gamma2(double mu) {
  constexpr double even[11] = {-0.65587807152025388108,       0.1665386113822914895,
                               -0.0096219715278769735621,     -0.0011651675918590651121,
                               0.00012805028238811618615,     -0.0000012504934821426706573,
                               -0.00000020563384169776071035, 0.0000000050020076444692229301,
                               0.00000000010434267116911005105, -0.0000000000036968056186422057082,
                               -0.000000000000020583260535665067832};
  const double mu2 = mu * mu;
  double rest = even[10];
  for (int k = 9; k >= 0; --k) rest = rest * mu2 + even[k];
  return two_sum(1.0, mu2 * rest);
}

// cosh(s) and sinh(s) / s as 1 + (small part) for |s| < 1, where f_0 below needs the small
// part to its last bits; plain functions above (there f_0 has no cancellation).
KOKKOS_INLINE_FUNCTION Compensated cosh_compensated(double s) {
  if (!(::fabs(s) < 1)) return {::cosh(s), 0.0};
  const double h = ::sinh(0.5 * s);
  return two_sum(1.0, 2 * h * h);
}
KOKKOS_INLINE_FUNCTION Compensated sinhc_compensated(double s) {
  if (!(::fabs(s) < 1)) return {::sinh(s) / s, 0.0};
  constexpr double inverse_odd_factorial[9] = {1.0 / 6,   1.0 / 120, 1.0 / 5040, 2.7557319223985893e-06,
                                               2.505210838544172e-08, 1.6059043836821613e-10,
                                               7.647163731819816e-13, 2.8114572543455206e-15,
                                               8.22063524662433e-18};  // 1 / (2k + 1)!
  const double s2 = s * s;
  double sum = inverse_odd_factorial[8];
  for (int k = 7; k >= 0; --k) sum = sum * s2 + inverse_odd_factorial[k];
  return two_sum(1.0, s2 * sum);
}

struct TemmePair {
  double k_mu;        // K_mu(x)
  double ratio;       // K_{mu+1}(x) / K_mu(x)
};

// Temme (1975), eqs. for |mu| <= 1/2 with c_k = (x^2/4)^k / k!:
//   K_mu(x)     = sum_k c_k f_k,
//   K_{mu+1}(x) = (2/x) sum_k c_k (p_k - k f_k),
//   f_0 = mu pi / sin(mu pi) [Gamma_1(mu) cosh(s) + Gamma_2(mu) ln(2/x) sinh(s)/s], s = mu ln(2/x),
//   p_0 = (x/2)^-mu Gamma(1+mu) / 2,  q_0 = (x/2)^mu Gamma(1-mu) / 2,
//   f_k = (k f_{k-1} + p_{k-1} + q_{k-1}) / (k^2 - mu^2), p_k = p_{k-1} / (k - mu),
//   q_k = q_{k-1} / (k + mu). For 0 < x <= 1 (series_limit) about 15 terms reach 1e-17.
KOKKOS_INLINE_FUNCTION TemmePair temme_series(double mu, double x) {
  // s = mu ln(2/x) enters through e^s, cosh s and sinh s, which turn an absolute error in s
  // into a relative one in K: a plain log would leave |s| eps (1e-15 at x = 1e-5). So
  // ln(2/x) gets one Newton step (L + (2/x) e^-L - 1, with 2/x carried to its last bits)
  // and s its low part; the functions of s take a first-order correction in it.
  const double two_over_x = 2 / x;
  const double two_over_x_lo = ::fma(-two_over_x, x, 2.0) / x;
  const double log_hi = ::log(two_over_x);
  const double back = ::exp(-log_hi);
  const Compensated log_two_over_x = quick_two_sum(log_hi, ::fma(two_over_x, back, -1.0) + two_over_x_lo * back);
  const double s = mu * log_two_over_x.hi;
  const double s_lo = ::fma(mu, log_two_over_x.hi, -s) + mu * log_two_over_x.lo;
  // f_0 = mu pi / sin(mu pi) [Gamma_1 cosh(s) + Gamma_2 ln(2/x) sinh(s)/s]: near x = 1 and
  // mu = 0 its two terms (about -0.58 and 0.69) cancel to 0.12, so they are formed in
  // double-double.
  const Compensated cosh_s = cosh_compensated(s), sinhc_s = sinhc_compensated(s);
  // First-order terms in s_lo: d cosh = sinh ds, d (sinhc(s) L) = L ds (cosh - sinhc) / s.
  const double d_cosh = sinhc_s.hi * s * s_lo;
  const double d_sinhc_log = s != 0 ? log_two_over_x.hi * s_lo * (cosh_s.hi - sinhc_s.hi) / s : 0.0;
  const Compensated first = multiply(temme_gamma1(mu), add(cosh_s, d_cosh));
  const Compensated second = multiply(temme_gamma2(mu), add(multiply(sinhc_s, log_two_over_x), d_sinhc_log));
  const double mu_pi_over_sin = (mu == 0) ? 1.0 : (pi * mu) / ::sin(pi * mu);
  const Compensated f0 = multiply(add(first, second.hi), mu_pi_over_sin);
  const Compensated f0_full = add(f0, second.lo * mu_pi_over_sin);
  const double exp_s = ::exp(s);
  const double two_over_x_to_mu = exp_s + exp_s * s_lo;  // (x/2)^-mu
  double p = 0.5 * two_over_x_to_mu / reciprocal_gamma_one_plus(mu);
  double q = 0.5 / (two_over_x_to_mu * reciprocal_gamma_one_plus(-mu));
  const double quarter_x2 = 0.25 * x * x;
  double f = f0_full.hi, c = 1;
  Compensated k_mu = f0_full, k_mu1_sum{p, 0.0};  // the k = 0 terms
  for (int k = 1; k <= 60; ++k) {
    f = (k * f + p + q) / (k * k - mu * mu);
    p /= k - mu;
    q /= k + mu;
    c *= quarter_x2 / k;
    const double term = c * f;
    k_mu = add(k_mu, term);
    k_mu1_sum = add(k_mu1_sum, c * (p - k * f));
    if (::fabs(term) < 1e-17 * ::fabs(k_mu.hi)) break;
  }
  return {k_mu.hi, 2 * k_mu1_sum.hi / (x * k_mu.hi)};
}

// K_{mu + steps}(x) from K_mu(x) and r_0 = K_{mu+1}(x) / K_mu(x) by the forward recurrence
// K_{m+1} = (2 m / x) K_m + K_{m-1} (Campbell 1980), which is stable for K at every x, run
// on the ratios r_m = K_{m+1} / K_m = 2 m / x + 1 / r_{m-1}. Their product is kept as a
// mantissa and a binary exponent (exact scaling): at tiny x one ratio can reach 1e302 and
// K itself overflows while log K stays finite.
KOKKOS_INLINE_FUNCTION LogAndValue recur_in_order(LogAndValue k_mu, double ratio, double mu, double x, int steps) {
  // Where K_mu itself underflows (x > ~700) the recurrence runs on 1 and log K_mu is added.
  const bool scaled = !(k_mu.value > 1e-300);
  double mantissa = scaled ? 1.0 : k_mu.value;
  int exponent = 0;
  for (int i = 0; i < steps; ++i) {
    // 2 (mu + i) / x rounds once per step; a rounded 2 / x would bias every step alike.
    if (i > 0) ratio = 2 * (mu + i) / x + 1 / ratio;
    int e = 0;
    mantissa *= ::frexp(ratio, &e);  // exact: ratio = m 2^e, 1/2 <= m < 1
    exponent += e;
    int f = 0;
    mantissa = ::frexp(mantissa, &f);
    exponent += f;
  }
  constexpr double ln2 = 0.693147180559945309417232121458176568;
  double log_value = ::log(mantissa) + exponent * ln2;
  if (scaled) {  // log K_mu is large there: one rounding at its scale, with its low part
    const Compensated sum = two_sum(k_mu.log_value, log_value);
    log_value = sum.hi + (sum.lo + k_mu.log_lo);
  }
  // +inf where K exceeds DBL_MAX, as the true value does; ldexp scales exactly otherwise.
  return {log_value, scaled ? ::exp(log_value) : ::ldexp(mantissa, exponent)};
}

// K_nu(x) for 0 < x <= 1 (series_limit) and nu >= 0: Temme for mu = nu - round(nu), then
// the recurrence.
KOKKOS_INLINE_FUNCTION LogAndValue bessel_k_small_x(double nu, double x) {
  const int steps = static_cast<int>(nu + 0.5);
  const double mu = nu - steps;
  const TemmePair pair = temme_series(mu, x);
  return recur_in_order({::log(pair.k_mu), pair.k_mu}, pair.ratio, mu, x, steps);
}

}  // namespace pk::besselk::Details
