#pragma once
// Small-x path of K_nu: Temme's series for K_mu and K_{mu+1}, |mu| <= 1/2, then the
// forward recurrence in the order (Campbell) up to nu. Device-callable; no allocation.
#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::details {

constexpr double pi = 3.141592653589793238462643383279502884;

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

// Temme's gamma_1(mu) = (1/Gamma(1-mu) - 1/Gamma(1+mu)) / (2 mu): the odd part of the
// series above, summed directly so there is no cancellation as mu -> 0.
KOKKOS_INLINE_FUNCTION double temme_gamma1(double mu) {
  constexpr double odd[11] = {0.57721566490153286061,      -0.042002635034095235529,   -0.042197734555544336748,
                              0.0072189432466630995424,    -0.00021524167411495097282, -0.000020134854780788238656,
                              0.0000011330272319816958824, 0.0000000061160951044814158179,
                              -0.0000000011812745704870201446, 0.000000000007782263439905071254,
                              0.0000000000005100370287454475979};
  const double mu2 = mu * mu;
  double sum = odd[10];
  for (int k = 9; k >= 0; --k) sum = sum * mu2 + odd[k];
  return -sum;
}

// sinh(e) / e without the loss of sinh(e) - e as e -> 0.
KOKKOS_INLINE_FUNCTION double sinhc(double e) {
  if (e * e < 1e-8) return 1 + e * e / 6 * (1 + e * e / 20);
  return ::sinh(e) / e;
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
  const double log_two_over_x = -::log(0.5 * x);
  const double s = mu * log_two_over_x;
  const double inv_gamma_plus = reciprocal_gamma_one_plus(mu);    // 1 / Gamma(1 + mu)
  const double inv_gamma_minus = reciprocal_gamma_one_plus(-mu);  // 1 / Gamma(1 - mu)
  const double gamma_2 = 0.5 * (inv_gamma_minus + inv_gamma_plus);
  const double mu_pi_over_sin = (mu == 0) ? 1.0 : (pi * mu) / ::sin(pi * mu);
  double f = mu_pi_over_sin * (temme_gamma1(mu) * ::cosh(s) + gamma_2 * sinhc(s) * log_two_over_x);
  const double two_over_x_to_mu = ::exp(s);  // (x/2)^-mu
  double p = 0.5 * two_over_x_to_mu / inv_gamma_plus;
  double q = 0.5 / (two_over_x_to_mu * inv_gamma_minus);
  const double quarter_x2 = 0.25 * x * x;
  double c = 1, k_mu = f, k_mu1_sum = p;  // the k = 0 terms
  for (int k = 1; k <= 60; ++k) {
    f = (k * f + p + q) / (k * k - mu * mu);
    p /= k - mu;
    q /= k + mu;
    c *= quarter_x2 / k;
    const double term = c * f;
    k_mu += term;
    k_mu1_sum += c * (p - k * f);
    if (::fabs(term) < 1e-17 * ::fabs(k_mu)) break;
  }
  return {k_mu, 2 * k_mu1_sum / (x * k_mu)};
}

struct LogAndValue {
  double log_value;
  double value;
};

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
  const double log_value = ::log(mantissa) + exponent * ln2 + (scaled ? k_mu.log_value : 0.0);
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

}  // namespace pk::besselk::details
