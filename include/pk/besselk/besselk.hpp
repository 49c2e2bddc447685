#pragma once
// K_nu(x), the modified Bessel function of the second kind, and log K_nu(x), in double
// precision, callable inside any Kokkos kernel (and on the host).
//
// Paths (chosen by x, so that a tile of Morton-ordered distances mostly takes one; the
// half-integer orders nu = 1/2 ... 11/2 take their closed form at every x instead):
//   0 < x <= 1       Temme's series for K_mu, K_{mu+1} (|mu| <= 1/2) and the forward
//                    recurrence in the order (Campbell 1980) up to nu; at 1 < x <= 2 the
//                    series loses ~5e-15 (measured), the integral does not;
//   1 < x < 25       the integral of exp(-x cosh t) cosh(nu t) over the fixed range [0, 5]
//                    by the trapezoid rule, its terms scaled by their largest (Takekawa):
//                    for a GPU's kernels 8 bins of 5 nodes, a local maximum per bin joined by
//                    log-sum-exp (the paper's refined algorithm, eq. 8), node after node; for
//                    a host space's, all 40 nodes against one maximum in rows of 8 SIMD lanes
//                    (details/integral.hpp), chosen by the space template argument;
//   x >= 25          Hankel's asymptotic expansion (the integral's fixed step would need
//                    to shrink like 1/sqrt(x) there).
// Above nu = direct_max_order the last two paths give K_mu and K_{mu+1} (mu = nu - round(nu))
// and the same recurrence carries them up to nu.
// Validity: 0 <= nu <= max_order and min_argument <= x < inf; every other input (nu < 0,
// nu > 50, x <= 0, NaN, inf) gives NaN: the recurrence and the asymptotic series are only
// checked up to nu = 50 (tests/besselk/reference.txt), and below min_argument the series
// has not been checked. Within the region K may overflow to +inf (e.g. nu = 50, x = 1e-6,
// where K is about 1e377) or underflow to 0 (x > 745), as the true value does; log K stays
// finite there. Accuracy against mpmath, and the cost of each path: docs/besselk.md.
// evaluate, bessel_k and log_bessel_k take the execution space whose kernels call them as an
// optional template argument (bessel_k<Space>(nu, x)): without it, the GPU's form.
#include <pk/besselk/details/asymptotic.hpp>
#include <pk/besselk/details/by_branch.hpp>
#include <pk/besselk/details/half_integer.hpp>
#include <pk/besselk/details/integral.hpp>
#include <pk/besselk/details/temme.hpp>
#include <pk/core/checks.hpp>
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::besselk {

constexpr double max_order = 50.0;
constexpr double min_argument = 1e-300;
constexpr double series_limit = 1.0;       // Temme for x <= series_limit
constexpr double asymptotic_limit = 25.0;  // Hankel for x >= asymptotic_limit

enum class Path : int { invalid = 0, series = 1, integral = 2, asymptotic = 3 };

// Which path evaluate() takes for (nu, x).
KOKKOS_INLINE_FUNCTION Path path_for(double nu, double x) {
  // Written so that NaN fails every test.
  if (!(nu >= 0 && nu <= max_order && x >= min_argument && x <= 1.7976931348623157e308)) return Path::invalid;
  if (x <= series_limit) return Path::series;
  if (x < asymptotic_limit) return Path::integral;
  return Path::asymptotic;
}

struct BesselK {
  double log_value;  // log K_nu(x)
  double value;      // K_nu(x); +inf where it overflows, 0 where it underflows
};

// Above this order the integral and the asymptotic series are taken at |mu| and mu + 1 and
// carried up by the recurrence: at the order itself the integral's exponents reach
// nu t ~ 250, and a rounding of that size shows up in K (1e-14 at nu = 49.5, against 2e-15
// through the recurrence).
constexpr double direct_max_order = 5.0;

namespace Details {

// The integral path's node sum for the kernels of ExecutionSpace: in SIMD lanes where threads
// are a host's cores, node after node where they run in lockstep (a GPU thread per point).
template <class ExecutionSpace>
inline constexpr NodeSum node_sum_for =
    SpaceTraits<ExecutionSpace>::lockstep_threads > 1 ? NodeSum::running : NodeSum::lanes;
template <>
inline constexpr NodeSum node_sum_for<void> = NodeSum::running;

// K_nu(x), and log K_nu(x) where `wanted` asks for it: the paths as listed above.
template <Wanted wanted, NodeSum sum>
KOKKOS_INLINE_FUNCTION LogAndValue evaluate(double nu, double x) {
  const Path path = path_for(nu, x);
  if (path == Path::invalid) return {NAN, NAN};
  if (is_half_integer_order(nu)) return bessel_k_half_integer<wanted>(static_cast<int>(nu), x);
  if (path == Path::series) return bessel_k_small_x<wanted>(nu, x);
  if (nu <= direct_max_order)
    return path == Path::integral ? bessel_k_integral<wanted, sum>(nu, x) : bessel_k_asymptotic<wanted>(nu, x);
  // Where K_mu underflows (x > ~700) the recurrence starts from log K_mu and takes the ratio
  // from the logs, so both orders come with their logs.
  constexpr Wanted both = Wanted::log_and_value;
  const int steps = static_cast<int>(nu + 0.5);
  const double mu = nu - steps;
  const auto lower =
      path == Path::integral ? bessel_k_integral<both, sum>(::fabs(mu), x) : bessel_k_asymptotic<both>(::fabs(mu), x);
  const auto upper =
      path == Path::integral ? bessel_k_integral<both, sum>(mu + 1, x) : bessel_k_asymptotic<both>(mu + 1, x);
  // The ratio from the values while they are normal doubles (a difference of logs
  // would lose |log K| eps), from the logs where K underflows (x > ~700).
  const double ratio = lower.value > 1e-300 ? upper.value / lower.value : ::exp(upper.log_value - lower.log_value);
  return recur_in_order<wanted>(lower, upper.value, ratio, mu, x, steps);
}

// The group of points whose evaluations take the same branches and about as many terms, as a
// key of for_each_sorted_by_branch: 0 for the closed forms and NaN; else one of five routes (the
// series; the integral and the asymptotic series, each directly or at two orders carried up by
// the recurrence) times four bands of x within the route's path, since x sets how many terms
// the series, the integral's bins and the asymptotic series take before they stop.
constexpr int x_bands = 4;
constexpr int branches = 1 + 5 * x_bands;
KOKKOS_INLINE_FUNCTION int branch_of(double nu, double x) {
  const Path path = path_for(nu, x);
  if (path == Path::invalid || is_half_integer_order(nu)) return 0;
  const int recurred = nu <= direct_max_order ? 0 : 2;  // routes 3 and 4
  int route = 0, band = 0;
  if (path == Path::series) {
    band = (x >= 0.01) + (x >= 0.1) + (x >= 0.4);
  } else if (path == Path::integral) {
    route = 1 + recurred;
    band = (x >= 2) + (x >= 4) + (x >= 8);
  } else {
    route = 2 + recurred;
    band = (x >= 40) + (x >= 70) + (x >= 150);
  }
  return 1 + route * x_bands + band;
}

// Temme's series at this many points side by side in a host space's thread (a SIMD register of
// doubles on AVX-512; two on AVX2). A GPU thread takes one point.
constexpr int host_series_lanes = 8;

// Whether evaluate(nu, x) takes Temme's series.
KOKKOS_INLINE_FUNCTION bool takes_series(double nu, double x) {
  return path_for(nu, x) == Path::series && !is_half_integer_order(nu);
}

// store(i, K_nu(x) as `wanted`) at every point i of [0, n), nu and x of it, on `space`. On a
// GPU each team's chunk of points is sorted by branch (details/by_branch.hpp): the threads of a
// warp given points of different paths would run every path in turn. On a host space a thread
// takes a chunk of points, each in turn but those of Temme's series, which it gathers and
// evaluates host_series_lanes at a time, the last group filled out with copies of its first point.
template <Wanted wanted, class ExecutionSpace, class Orders, class Arguments, class Store>
void evaluate_points(const char* label, const ExecutionSpace& space, const Orders& nu, const Arguments& x,
                     const Store& store) {
  constexpr NodeSum sum = node_sum_for<ExecutionSpace>;
  const long n = static_cast<long>(nu.extent(0));
  if constexpr (SpaceTraits<ExecutionSpace>::lockstep_threads > 1) {
    for_each_sorted_by_branch<branches>(
        label, space, n, KOKKOS_LAMBDA(const long i) { return branch_of(nu(i), x(i)); },
        KOKKOS_LAMBDA(const long i) { store(i, evaluate<wanted, sum>(nu(i), x(i))); });
  } else {
    constexpr int lanes = host_series_lanes, chunk = 8 * lanes;
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecutionSpace>(space, 0, (n + chunk - 1) / chunk), KOKKOS_LAMBDA(const long c) {
          const long begin = c * chunk, end = n - begin < chunk ? n : begin + chunk;
          long series[chunk];
          int count = 0;
          for (long i = begin; i < end; ++i) {
            if (takes_series(nu(i), x(i)))
              series[count++] = i;
            else
              store(i, evaluate<wanted, sum>(nu(i), x(i)));
          }
          for (int first = 0; first < count; first += lanes) {
            double group_nu[lanes], group_x[lanes];
            for (int l = 0; l < lanes; ++l) {
              const long i = series[first + l < count ? first + l : first];
              group_nu[l] = nu(i);
              group_x[l] = x(i);
            }
            LogAndValue k[lanes];
            bessel_k_small_x<wanted, lanes>(group_nu, group_x, k);
            for (int l = 0; l < lanes && first + l < count; ++l) store(series[first + l], k[l]);
          }
        });
  }
}

}  // namespace Details

// log K_nu(x) and K_nu(x) together.
template <class ExecutionSpace = void>
KOKKOS_INLINE_FUNCTION BesselK evaluate(double nu, double x) {
  const auto r = Details::evaluate<Details::Wanted::log_and_value, Details::node_sum_for<ExecutionSpace>>(nu, x);
  return {r.log_value, r.value};
}

// K_nu(x) alone: the paths skip the logs that evaluate() also forms.
template <class ExecutionSpace = void>
KOKKOS_INLINE_FUNCTION double bessel_k(double nu, double x) {
  return Details::evaluate<Details::Wanted::value, Details::node_sum_for<ExecutionSpace>>(nu, x).value;
}
template <class ExecutionSpace = void>
KOKKOS_INLINE_FUNCTION double log_bessel_k(double nu, double x) {
  return evaluate<ExecutionSpace>(nu, x).log_value;
}

// log K and K at every point (nu(i), x(i)), on `space`; all four views in its memory. Points
// are taken in groups of one path (Details::evaluate_points).
template <class ExecutionSpace, class Orders, class Arguments, class Values>
void evaluate_all(const ExecutionSpace& space, const Orders& nu, const Arguments& x, const Values& log_k,
                  const Values& k) {
  static_assert(check_arguments<ExecutionSpace, Orders, Arguments, Values>());
  require(x.extent(0) == nu.extent(0) && log_k.extent(0) == nu.extent(0) && k.extent(0) == nu.extent(0),
          "besselk::evaluate_all: orders, arguments and results differ in length");
  Details::evaluate_points<Details::Wanted::log_and_value>(
      "pk::besselk::evaluate_all", space, nu, x, KOKKOS_LAMBDA(const long i, const Details::LogAndValue& r) {
        log_k(i) = r.log_value;
        k(i) = r.value;
      });
}

// K alone at every point, as evaluate_all takes them.
template <class ExecutionSpace, class Orders, class Arguments, class Values>
void bessel_k_all(const ExecutionSpace& space, const Orders& nu, const Arguments& x, const Values& k) {
  static_assert(check_arguments<ExecutionSpace, Orders, Arguments, Values>());
  require(x.extent(0) == nu.extent(0) && k.extent(0) == nu.extent(0),
          "besselk::bessel_k_all: orders, arguments and results differ in length");
  Details::evaluate_points<Details::Wanted::value>(
      "pk::besselk::bessel_k_all", space, nu, x,
      KOKKOS_LAMBDA(const long i, const Details::LogAndValue& r) { k(i) = r.value; });
}

}  // namespace pk::besselk
