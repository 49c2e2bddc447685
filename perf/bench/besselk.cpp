// BesselK and Matern: K_nu evaluations per second on each space against the best implementation
// measured there (ours, GSL, Boost) with the FP64 rate beside it, the error against the mpmath
// table, Matern matrix generation and one log-likelihood evaluation.
#include "registry.hpp"

#include <pk/besselk/besselk.hpp>
#include <pk/besselk/independent.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/reference.hpp>
#include <pk/core/spaces.hpp>
#include <pk/core/timing.hpp>
#include <probes/fp64_peak.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

namespace pk::bench {

namespace {

namespace bk = pk::besselk;

// (nu, x) spread over the Gaussian-process region: nu in [0.05, 5], x log-uniform in
// [1e-3, 100], a fixed low-discrepancy pattern (no RNG, same points on every space).
void gp_point(long i, double& nu, double& x) {
  const double u = std::fmod(0.5 + i * 0.6180339887498949, 1.0), v = std::fmod(0.5 + i * 0.7548776662466927, 1.0);
  nu = 0.05 + 4.95 * u;
  x = std::pow(10.0, -3 + 5 * v);
}

// The reference points of a box: the tested box (every order, x in [1e-6, 700]) and the
// Gaussian-process points' box (gp_point's, which CuBesselK's driver also reports on).
struct Box {
  double nu_lo, nu_hi, x_lo, x_hi;
};
constexpr Box tested_box{0, 50, 1e-6, 700}, gp_box{0.05, 5, 1e-3, 100};

// Max error (log K and K, whichever is larger) of `log_k`, `k` against the reference,
// over `box`; points without an answer (NaN: a library's reported error, e.g. Boost's
// overflow) are counted in `unanswered` instead.
double max_error(const std::vector<bk::ReferencePoint>& ref, const std::vector<double>& log_k,
                 const std::vector<double>& k, double& unanswered, const Box& box = tested_box) {
  double worst = 0;
  unanswered = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (ref[i].nu < box.nu_lo || ref[i].nu > box.nu_hi || ref[i].x < box.x_lo || ref[i].x > box.x_hi) continue;
    if (std::isnan(log_k[i]) && std::isnan(k[i])) {
      ++unanswered;
      continue;
    }
    worst = std::max(worst, bk::log_k_error(log_k[i], ref[i].log_k));
    const double e = bk::k_error(k[i], ref[i].k);
    if (!std::isnan(e)) worst = std::max(worst, e);
  }
  return worst;
}

}  // namespace

struct BesselKBench {
  static constexpr const char* kernel = "besselk";
  static constexpr const char* description =
      "K_nu evaluations/s (vs the best of ours, GSL and Boost; FP64 rate beside), Matern matrix generation, "
      "one log-likelihood";

  template <class Space>
  std::vector<Result> run(const Space& space, const Context& c) const {
    std::vector<Result> results;
    // The evaluate case's run also gives GSL's and Boost's records on a host space.
    if (c.wants("evaluate") || c.wants("evaluate-gsl") || c.wants("evaluate-boost")) evaluate(space, c, results);
    matern(space, c, results);
    return results;
  }

  // K_nu on the Gaussian-process points, its accuracy and the FP64 rate beside it.
  template <class Space>
  void evaluate(const Space& space, const Context& c, std::vector<Result>& results) const {
    using Memory = typename Space::memory_space;
    const long points = c.size == Size::tiny ? 100000 : (c.size == Size::small ? 2000000 : 20000000);
    const int repeats = c.size == Size::tiny ? 3 : 5;

    // Accuracy on this space over the reference table.
    const auto ref = bk::read_reference(bk::locate_reference(PK_BESSELK_REFERENCE));
    const long nref = static_cast<long>(ref.size());
    Kokkos::View<double*, Kokkos::HostSpace> ref_nu("pk::bench::besselk::ref_nu", nref),
        ref_x("pk::bench::besselk::ref_x", nref);
    for (long i = 0; i < nref; ++i) ref_nu(i) = ref[i].nu, ref_x(i) = ref[i].x;
    const auto dref_nu = Kokkos::create_mirror_view_and_copy(Memory{}, ref_nu);
    const auto dref_x = Kokkos::create_mirror_view_and_copy(Memory{}, ref_x);
    Kokkos::View<double*, Memory> ref_log("pk::bench::besselk::ref_log_k", nref),
        ref_k("pk::bench::besselk::ref_k", nref);
    bk::evaluate_all(space, dref_nu, dref_x, ref_log, ref_k);
    const auto hlog = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, ref_log);
    const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, ref_k);
    double our_unanswered = 0, gp_unanswered = 0;
    const std::vector<double> our_log(hlog.data(), hlog.data() + nref), our_k(hk.data(), hk.data() + nref);
    const double our_error = max_error(ref, our_log, our_k, our_unanswered);
    const double our_gp_error = max_error(ref, our_log, our_k, gp_unanswered, gp_box);

    // Throughput on the Gaussian-process points.
    Kokkos::View<double*, Kokkos::HostSpace> hnu("pk::bench::besselk::nu", points), hx("pk::bench::besselk::x", points);
    for (long i = 0; i < points; ++i) gp_point(i, hnu(i), hx(i));
    const auto nu = Kokkos::create_mirror_view_and_copy(Memory{}, hnu);
    const auto x = Kokkos::create_mirror_view_and_copy(Memory{}, hx);
    Kokkos::View<double*, Memory> k("pk::bench::besselk::k", points);
    const auto run_ours = [&] { bk::bessel_k_all(space, nu, x, k); };

    // GSL and Boost on the host cores (one call per point in a Kokkos host loop); their own
    // records come with the host run.
    const long host_points = std::min<long>(points, 2000000);
    std::vector<double> out(host_points);
    using Host = Kokkos::DefaultHostExecutionSpace;
    const auto host_library = [&](double (*f)(double, double)) {
      return [&, f] {
        Kokkos::parallel_for("pk::bench::besselk::host_library", Kokkos::RangePolicy<Host>(0, host_points),
                             [&](const long i) { out[i] = f(hnu(i), hx(i)); });
        Host{}.fence();
      };
    };
    // The FP64 limit beside ours: how many FMA-rate operations the space could do in the time
    // of one of our evaluations. Ours, the probe and, on a host space, GSL and Boost (the best
    // of the three is the limit there) are timed in turn, round after round, so that each
    // figure and the limits it is rated against see the same states of the machine.
    const pk::Fp64Probe<Space> probe(space);
    RepeatedSeconds timed, probe_timed, gsl_timed, boost_timed;
    if constexpr (runs_on_host<Space>) {
      const auto times = interleaved_seconds(space, repeats, run_ours, probe, host_library(bk::gsl_bessel_k),
                                             host_library(bk::boost_bessel_k));
      timed = times[0], probe_timed = times[1], gsl_timed = times[2], boost_timed = times[3];
    } else {  // GSL's host rate is kept for comparison; on a GPU ours is the only one measured there
      const auto times = interleaved_seconds(space, repeats, run_ours, probe);
      timed = times[0], probe_timed = times[1];
      gsl_timed = repeated_seconds(Host{}, repeats, host_library(bk::gsl_bessel_k));
    }
    const double ours = points / timed.median, gsl = host_points / gsl_timed.median;
    const double fp64_peak = probe.gflops(probe_timed.median);
    double best = ours;
    if constexpr (runs_on_host<Space>) {
      std::vector<double> gsl_log(nref), gsl_k(nref), boost_log(nref), boost_k(nref);
      for (long i = 0; i < nref; ++i) {
        gsl_log[i] = bk::gsl_log_bessel_k(ref[i].nu, ref[i].x), gsl_k[i] = bk::gsl_bessel_k(ref[i].nu, ref[i].x);
        boost_log[i] = bk::boost_log_bessel_k(ref[i].nu, ref[i].x),
        boost_k[i] = bk::boost_bessel_k(ref[i].nu, ref[i].x);
      }
      const double boost = host_points / boost_timed.median;
      best = std::max({ours, gsl, boost});
      double gsl_unanswered = 0, boost_unanswered = 0;
      const double gsl_error = max_error(ref, gsl_log, gsl_k, gsl_unanswered);
      const double boost_error = max_error(ref, boost_log, boost_k, boost_unanswered);
      for (const auto& [name, rate, error, unanswered, library_timed] :
           {std::tuple{"evaluate-gsl", gsl, gsl_error, gsl_unanswered, gsl_timed},
            std::tuple{"evaluate-boost", boost, boost_error, boost_unanswered, boost_timed}}) {
        results.push_back(Result{name,
                                 {{"evals_per_second", rate},
                                  {"max_rel_error", error},
                                  {"unanswered", unanswered},
                                  {"points", double(host_points)},
                                  {"limit_interleaved", 1.0}},
                                 "evals_per_second",
                                 "the best implementation measured on this space",
                                 rate / best});
        add_repeats(results.back().metrics, library_timed);
      }
    }
    results.push_back(Result{"evaluate",
                             {{"evals_per_second", ours},
                              {"max_rel_error", our_error},
                              {"max_rel_error_gp", our_gp_error},
                              {"unanswered", our_unanswered},
                              {"points", double(points)},
                              {"gsl_evals_per_second", gsl},
                              {"best_evals_per_second", best},
                              {"fp64_peak_gflops", fp64_peak},
                              {"fp64_peak_spread", probe_timed.spread()},
                              {"fp64_ops_per_eval_at_peak", fp64_peak * 1e9 / ours},
                              {"limit_interleaved", 1.0}},
                             "evals_per_second",
                             "the best implementation measured on this space",
                             ours / best});
    add_repeats(results.back().metrics, timed);
  }

  // Matern generation and one log-likelihood (tiled Cholesky), medium correlation.
  template <class Space>
  void matern(const Space& space, const Context& c, std::vector<Result>& results) const {
    using Memory = typename Space::memory_space;
    std::vector<long> sizes;
    switch (c.size) {
      case Size::tiny:
        sizes = {400};
        break;
      case Size::small:
        sizes = {2000};
        break;
      case Size::full:
        sizes = runs_on_host<Space> ? std::vector<long>{5000, 10000} : std::vector<long>{10000, 20000, 40000};
        break;
    }
    const bk::MaternParameters p{1.0, 0.1, 0.5};
    for (const long n : sizes) {
      if (pk::interrupted()) break;
      if (!c.wants("matern-n" + std::to_string(n))) continue;
      const auto s = bk::to_space(space, bk::synthetic_locations(static_cast<std::size_t>(n), 7));
      bk::Matrix<Space> work(Kokkos::view_alloc(space, "pk::bench::besselk::covariance"), n, n);
      const int matern_repeats = n > 5000 ? 1 : 3;
      const double generate =
          median_seconds(space, matern_repeats, [&] { bk::generate_covariance(space, s, p, work); });
      const double elements = 0.5 * double(n) * double(n + 1);  // the lower triangle
      // One realisation's data, then one log-likelihood: generate + factor + solve.
      Kokkos::View<double*, Kokkos::LayoutLeft, Memory> z(Kokkos::view_alloc(space, "pk::bench::besselk::z"), n);
      Kokkos::parallel_for(
          "pk::bench::besselk::fill_z", Kokkos::RangePolicy<Space>(space, 0, n),
          KOKKOS_LAMBDA(const long i) { z(i) = ::sin(0.37 * i); });
      bk::LikelihoodTimes times;
      Kokkos::Timer timer;
      const double ll = bk::log_likelihood(space, s, z, p, work, &times);
      const double loglik = timer.seconds();
      const double flops = double(n) * n * n / 3;
      results.push_back(Result{"matern-n" + std::to_string(n),
                               {{"n", double(n)},
                                {"elements_per_second", elements / generate},
                                {"generate_seconds", generate},
                                {"loglik_seconds", loglik},
                                {"factor_seconds", times.factor},
                                {"factor_gflops", flops / times.factor * 1e-9},
                                {"log_likelihood", ll}},
                               "elements_per_second",
                               "",  // no limit measured: K_nu's rate is another kernel's
                               0});
    }
  }
};
PK_REGISTER_BENCHMARK(BesselKBench);

}  // namespace pk::bench
