#pragma once
// Middle-x path of K_nu: the integral K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt
// (Watson; Takekawa 2022, eq. 5) by the trapezoid rule on a fixed range with a fixed
// number of bins, each with its own local maximum, the bins joined by log-sum-exp
// (the paper's refined algorithm, eq. 8). The integrand is even and analytic, so the
// trapezoid rule from t = 0 converges geometrically in the step.
#include <pk/besselk/details/compensated.hpp>
#include <pk/besselk/details/polynomial.hpp>
#include <pk/core/bits.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk::Details {

// Fixed range [0, 5] in 40 steps (h = 1/8): for 1 < x < 25 and nu <= 5 (higher orders come
// by recurrence from |mu| <= 1/2 and mu + 1) the integrand at t = 5 is below 1e-20 of its
// peak and the step error below 1e-15; the range cut to 3.75 loses 1.7e-13 (measured against
// mpmath).
constexpr double integral_upper_bound = 5.0;
constexpr int integral_nodes = 40;
// How a bin's nodes are summed, chosen by the space that evaluates (besselk.hpp):
//   running  8 bins of 5, node after node with a running damping factor: the fewest live
//            values, for a GPU thread that takes one point (its registers set the occupancy);
//   lanes    every node at once against the largest exponent of all, in 5 rows of 8 lanes
//            summed lane by lane and then in pairs: independent lanes that a compiler takes
//            SIMD-wide across a point's nodes, and rows whose exponentials a CPU core runs
//            side by side instead of waiting on one bin's before the next.
enum class NodeSum { running, lanes };
template <NodeSum sum>
constexpr int integral_steps_per_bin = sum == NodeSum::lanes ? 8 : 5;
// A bin whose largest node lies this far below the largest so far, past the integrand's
// peak, ends the sum: it and the later nodes would add less than 2e-20 of it (40 nodes of
// at most e^-50 of the largest term).
constexpr double integral_negligible = 50.0;

// e^a for a <= 0, inline and without branches, so that a bin's nodes go through it together
// (on CPUs a library exp is a call per node, most of this path's time): a = n ln 2 + r with
// |r| <= ln(2)/2 (Cody-Waite, ln 2 in two parts), e^r = 1 + r + r^2 q(r) with q of degree 9
// fitted to (e^r - 1 - r) / r^2 (mpmath's chebyfit, 40 digits; e^r's error below 2e-17),
// times 2^n built in the exponent bits. Below -708, where e^a is under 2^-1021 and no term
// of the sum can matter, a is held at -708.
KOKKOS_INLINE_FUNCTION double exp_nonpositive(double a) {
  constexpr double log2e = 1.4426950408889634, ln2_hi = 0.6931471803691238, ln2_lo = 1.9082149292705877e-10;
  constexpr double shifter = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  a = a > -708.0 ? a : -708.0;
  const double shifted = ::fma(a, log2e, shifter);
  const double n = shifted - shifter;
  const double r = ::fma(-n, ln2_lo, ::fma(-n, ln2_hi, a));
  const double q = horner(r, 0.5000000000000001, 0.16666666666666669, 0.041666666666624164, 0.008333333333330065,
                          0.0013888888917196719, 0.00019841269863040545, 2.4801521322368692e-05, 2.7557268480310024e-06,
                          2.7620075879983367e-07, 2.5100375832561234e-08);
  // 2^n from the shifted sum's bits, whose low ones hold n (shifted is 1.5 * 2^52 + n):
  // converting n to an integer instead has no SIMD instruction before AVX-512.
  const double scale = pk::double_of((pk::bits_of(shifted) + 1023) << 52);
  return (1 + (r + r * r * q)) * scale;
}

// K_nu(x) = e^{-x} int_0^T exp(g(t)) (1 + e^{-2 nu t}) / 2 dt with
// g(t) = -2 x sinh^2(t/2) + nu t: e^{-x} is taken out exactly, so nothing of size x is
// subtracted inside the exponent (x cosh t - x would lose x * eps).
// The nodes are fixed, so 2 sinh^2(t_j / 2) = cosh t_j - 1 is a table (mpmath, rounded),
// and each node costs one exp. g is concave (g'' = -x cosh t), so once it falls within a
// bin it falls at every later node: the running sum stops at the first such bin that is
// negligible (3 or 4 of the 8 bins are summed at x = 25, 7 at x = 2, all 8 near x = 1); the
// lanes take every node, the terms past the peak adding nothing.
template <Wanted wanted, NodeSum sum = NodeSum::running>
KOKKOS_INLINE_FUNCTION LogAndValue bessel_k_integral(double nu, double x) {
  constexpr int nodes = integral_nodes, steps = integral_steps_per_bin<sum>, bins = nodes / steps;
  static_assert(bins * steps == nodes && (sum == NodeSum::running || (steps & (steps - 1)) == 0),
                "whole bins; lanes summed in pairs need a power of two");
  static_assert(nodes == 40, "the table below holds 2 sinh^2(j h / 2) for h = 1/8, j < 40");
  constexpr double cosh_minus_one[nodes] = {0.0,
                                            0.00782267782571086,
                                            0.03141309987957318,
                                            0.07114034670458677,
                                            0.12762596520638078,
                                            0.20175369297560633,
                                            0.2946832846768447,
                                            0.40786865682280316,
                                            0.5430806348152438,
                                            0.7024346581381905,
                                            0.8884238771610158,
                                            1.1039581593626617,
                                            1.3524096152432474,
                                            1.6376653561921375,
                                            1.9641883097280879,
                                            2.3370870435875206,
                                            2.7621956910836314,
                                            3.246165228196992,
                                            3.796567530460195,
                                            4.422013837643509,
                                            5.132289479663686,
                                            5.938506971550673,
                                            6.853279872697439,
                                            7.8909201304827095,
                                            9.067661995777765,
                                            10.401916013575068,
                                            11.914557062512392,
                                            13.629250949773303,
                                            15.572824671057315,
                                            17.775686128468678,
                                            20.272299872959398,
                                            23.101726314486257,
                                            26.308232836016487,
                                            29.941986372478027,
                                            34.05983829029843,
                                            38.726213847251884,
                                            44.014120148530026,
                                            50.00628836886775,
                                            56.79646811119539,
                                            64.49089415251873};
  const double h = integral_upper_bound / nodes;
  const double damping_step = ::exp(-2 * nu * h);  // e^{-2 nu h}
  double total_max = 0, total_sum = 0;             // the largest exponent, and the sum of the terms against it
  if constexpr (sum == NodeSum::lanes) {
    double damping_steps[steps];  // e^{-2 nu j h}: a node's damping against its row's first
    damping_steps[0] = 1.0;
    for (int j = 1; j < steps; ++j) damping_steps[j] = damping_steps[j - 1] * damping_step;
    double g[nodes];
    for (int j = 0; j < nodes; ++j) g[j] = -x * cosh_minus_one[j] + nu * (j * h);
    double largest = g[0];
    for (int j = 1; j < nodes; ++j) largest = g[j] > largest ? g[j] : largest;
    double lanes[steps] = {};
    // The trapezoid's weights, 1/2 at t = 0: a row of them, since a test of the node's index
    // in the loop below kept g++ from running it across lanes with AVX2.
    double weight[steps];
    for (int j = 0; j < steps; ++j) weight[j] = j == 0 ? 0.5 : 1.0;
    for (int bin = 0; bin < bins; ++bin) {
      const double damping = exp_nonpositive(-2 * nu * (bin * steps) * h);  // e^{-2 nu t}, the row's first node
#pragma omp simd
      for (int j = 0; j < steps; ++j)
        lanes[j] += exp_nonpositive(g[bin * steps + j] - largest) * (1 + damping * damping_steps[j]) * weight[j];
      weight[0] = 1.0;
    }
    for (int width = steps / 2; width > 0; width /= 2)
      for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
    total_max = largest;
    total_sum = 0.5 * lanes[0];
  } else {
    for (int bin = 0; bin < bins; ++bin) {
      const int first = bin * steps;
      double g[steps];
      double local_max = -HUGE_VAL;
      for (int j = 0; j < steps; ++j) {
        g[j] = -x * cosh_minus_one[first + j] + nu * ((first + j) * h);
        local_max = g[j] > local_max ? g[j] : local_max;
      }
      if (bin > 0 && g[1] < g[0] && local_max < total_max - integral_negligible) break;
      const double damping = bin == 0 ? 1.0 : exp_nonpositive(-2 * nu * first * h);  // e^{-2 nu t}, the first node
      double bin_sum = 0, node_damping = damping;
      for (int j = 0; j < steps; ++j) {
        const double weight = (first + j == 0) ? 0.5 : 1.0;  // trapezoid end at t = 0
        bin_sum += weight * exp_nonpositive(g[j] - local_max) * (1 + node_damping);
        node_damping *= damping_step;
      }
      bin_sum *= 0.5;
      if (bin == 0) {  // the first bin sets the scale
        total_sum = bin_sum;
        total_max = local_max;
      } else if (local_max > total_max) {
        total_sum = total_sum * exp_nonpositive(total_max - local_max) + bin_sum;
        total_max = local_max;
      } else {
        total_sum += bin_sum * exp_nonpositive(local_max - total_max);
      }
    }
  }
  const double value = ::exp(-x) * ::exp(total_max) * (h * total_sum);
  if constexpr (wanted == Wanted::value) return {NAN, value};
  return {-x + total_max + ::log(h * total_sum), value};
}

}  // namespace pk::besselk::Details
