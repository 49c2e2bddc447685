// BesselK tutorial: evaluate the modified Bessel function K_nu(x) inside a Kokkos kernel,
// build a Matern covariance matrix and compute a Gaussian log-likelihood with it.
//
//   build/openmp/examples/pk-example-besselk-matern
//
// What it checks (exit status 1 if a check fails): K_nu satisfies its recurrence on each of
// its three evaluation paths and matches the closed form at nu = 1/2; the Matern matrix at
// nu = 3/2 matches its closed form; the log-likelihood of a sample drawn with range 0.1 is
// higher at 0.1 than at a range four times smaller or larger.
#include <pk/besselk/besselk.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/matern.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bk = pk::besselk;

namespace {

// The recurrence K_{nu+1}(x) = K_{nu-1}(x) + (2 nu / x) K_nu(x), in a kernel on `space`, at
// x = 0.5 (Temme's series), 3 (the integral) and 40 (Hankel's expansion); and
// K_{1/2}(x) = sqrt(pi / 2x) exp(-x).
template <class Space>
bool evaluate_besselk(const Space& space) {
  constexpr int points = 3;
  Kokkos::View<double* [3], typename Space::memory_space> residual("example::residual", points);
  const double nu = 1.3, pi = 3.14159265358979323846;
  Kokkos::parallel_for(
      "example::besselk", Kokkos::RangePolicy<Space>(space, 0, points), KOKKOS_LAMBDA(const int i) {
        const double x = i == 0 ? 0.5 : (i == 1 ? 3.0 : 40.0);
        // bessel_k gives K_nu(x); evaluate(nu, x) gives {log K, K} at the cost of one, and
        // log_bessel_k stays finite where K overflows or underflows.
        const double below = bk::bessel_k(nu - 1, x), k = bk::bessel_k(nu, x), above = bk::bessel_k(nu + 1, x);
        residual(i, 0) = x;
        residual(i, 1) = (above - below - 2 * nu / x * k) / above;
        // ::sqrt and ::exp, not std::, in kernels: CUDA provides the global ones on the device.
        residual(i, 2) = bk::evaluate(0.5, x).value / (::sqrt(pi / (2 * x)) * ::exp(-x)) - 1;
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, residual);
  bool ok = true;
  for (int i = 0; i < points; ++i) {
    std::printf("x = %4.1f: K_%.1f(x) = %.16e; recurrence %.1e, K_1/2 against its closed form %.1e\n", host(i, 0), nu,
                bk::bessel_k(nu, host(i, 0)), host(i, 1), host(i, 2));  // on the host, the same function
    ok = ok && std::abs(host(i, 1)) < 1e-13 && std::abs(host(i, 2)) < 1e-14;
  }
  return ok;
}

template <class Space>
bool matern(const Space& space) {
  // 400 locations in the unit square (jittered grid, Morton-ordered so that nearby points
  // are nearby rows), copied to the space's memory.
  const bk::Locations locations = bk::synthetic_locations(400, 1);
  const bk::DeviceLocations<Space> on_space = bk::to_space(space, locations);
  const long n = static_cast<long>(locations.size());

  // C(r) = sigma^2 2^(1-nu) / Gamma(nu) (r/beta)^nu K_nu(r/beta); generate_covariance fills
  // the lower triangle of the n x n matrix. At nu = 3/2 it is sigma^2 (1 + r/beta) exp(-r/beta).
  const bk::MaternParameters truth{1.0, 0.1, 1.5};  // variance sigma^2, range beta, smoothness nu
  bk::Matrix<Space> c("example::covariance", n, n);
  bk::generate_covariance(space, on_space, truth, c);
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, c);
  double worst = 0;
  for (long j = 0; j < n; ++j)
    for (long i = j; i < n; ++i) {
      const double r = std::hypot(locations.x[i] - locations.x[j], locations.y[i] - locations.y[j]) / truth.range;
      const double closed_form = truth.variance * (1 + r) * std::exp(-r);
      worst = std::max(worst, std::abs(host(i, j) - closed_form));
    }
  std::printf("Matern covariance of %ld locations at nu = 3/2: largest difference from the closed form %.1e\n", n,
              worst);

  // A sample of the Gaussian field with that covariance (z = L e, C = L L^T), and its
  // log-likelihood under three ranges: -n/2 log(2 pi) - 1/2 log|C| - 1/2 z^T C^-1 z through
  // a tiled Cholesky factorisation of C. (bk::fit_matern maximises it with BOBYQA.)
  const bk::Vector<Space> z = bk::synthetic_observations(space, on_space, truth, 7);
  bk::Matrix<Space> work("example::work", n, n);
  double loglik[3];
  const double ranges[3] = {truth.range / 4, truth.range, truth.range * 4};
  for (int i = 0; i < 3; ++i) {
    loglik[i] = bk::log_likelihood(space, on_space, z, {truth.variance, ranges[i], truth.smoothness}, work);
    std::printf("log-likelihood at range %.3f: %.3f\n", ranges[i], loglik[i]);
  }
  return worst < 1e-14 && loglik[1] > loglik[0] && loglik[1] > loglik[2];
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;  // the GPU in a CUDA build, else OpenMP
  std::printf("BesselK and Matern on %s\n", Space::name());
  const bool evaluated = evaluate_besselk(Space{});
  const bool fitted = matern(Space{});
  if (!evaluated) std::printf("FAILED: K_nu misses its recurrence or closed form\n");
  if (!fitted) std::printf("FAILED: the Matern matrix or the log-likelihood is wrong\n");
  if (evaluated && fitted) std::printf("all checks passed\n");
  return evaluated && fitted ? 0 : 1;
}
