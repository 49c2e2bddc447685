#pragma once
// The Gaussian log-likelihood of observations z at Morton-ordered locations under a Matern
// covariance, l = -n/2 log(2 pi) - 1/2 log|C| - 1/2 z^T C^-1 z, through the tiled Cholesky
// factor C = L L^T: log|C| = 2 sum log L_ii, z^T C^-1 z = |L^-1 z|^2. Synthetic data
// z = L e, e ~ N(0, I), and the maximum-likelihood fit of (sigma^2, beta, nu) by BOBYQA.
#include <pk/besselk/cholesky.hpp>
#include <pk/besselk/matern.hpp>
#include <pk/besselk/optimize.hpp>
#include <pk/core/blas.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <random>

namespace pk::besselk {

struct LikelihoodTimes {
  double generate = 0, factor = 0, solve = 0;  // seconds
};

// The pieces of the log-likelihood: log|C| and z^T C^-1 z.
struct LikelihoodParts {
  long n = 0;
  double log_det = 0, quadratic = 0;
  double value() const {
    constexpr double log_two_pi = 1.8378770664093454836;
    return -0.5 * (n * log_two_pi + log_det + quadratic);
  }
  // With C = sigma^2 R evaluated at sigma^2 = 1: the maximising sigma^2 = z^T R^-1 z / n,
  // and the log-likelihood there (sigma^2 profiled out).
  double profiled_variance() const { return quadratic / n; }
  double profiled_value() const {
    constexpr double log_two_pi = 1.8378770664093454836;
    return -0.5 * (n * log_two_pi + log_det + n * std::log(profiled_variance()) + n);
  }
};

// Evaluates the log-likelihood's parts; `work` is n x n scratch (overwritten). Throws
// pk::Error when C is not positive definite.
template <class ExecutionSpace>
LikelihoodParts log_likelihood_parts(const ExecutionSpace& space, const DeviceLocations<ExecutionSpace>& s,
                                     const Vector<ExecutionSpace>& z, const MaternParameters& p,
                                     const Matrix<ExecutionSpace>& work, LikelihoodTimes* times = nullptr,
                                     int tile = default_tile_size) {
  const long n = static_cast<long>(z.extent(0));
  require(n >= 2, "log-likelihood: need at least 2 observations");
  require(s.x.extent(0) == static_cast<std::size_t>(n), "log-likelihood: one observation per location expected");
  Kokkos::Timer timer;
  generate_covariance(space, s, p, work);
  space.fence();
  if (times) times->generate = timer.seconds();
  timer.reset();
  cholesky_in_place(space, work, tile);
  if (times) times->factor = timer.seconds();
  timer.reset();
  Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space> w(
      Kokkos::view_alloc(space, "pk::matern::whitened"), n, 1);
  Kokkos::deep_copy(space, Kokkos::subview(w, Kokkos::ALL, 0), z);
  blas::trsm(space, "L", "L", "N", "N", 1.0, work, w);  // w = L^-1 z
  const auto w0 = Kokkos::subview(w, Kokkos::ALL, 0);
  const double quadratic = blas::dot(space, w0, w0);
  double log_det = 0;
  const auto l = work;
  Kokkos::parallel_reduce(
      "pk::matern::log_determinant", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(const long i, double& sum) { sum += 2 * ::log(l(i, i)); }, log_det);
  if (times) times->solve = timer.seconds();
  return LikelihoodParts{n, log_det, quadratic};
}

template <class ExecutionSpace>
double log_likelihood(const ExecutionSpace& space, const DeviceLocations<ExecutionSpace>& s,
                      const Vector<ExecutionSpace>& z, const MaternParameters& p, const Matrix<ExecutionSpace>& work,
                      LikelihoodTimes* times = nullptr, int tile = default_tile_size) {
  return log_likelihood_parts(space, s, z, p, work, times, tile).value();
}

// z = L e with e ~ N(0, I) drawn on the host from `seed`: a sample of the Gaussian field
// with covariance Matern(p) at the locations.
template <class ExecutionSpace>
Vector<ExecutionSpace> synthetic_observations(const ExecutionSpace& space, const DeviceLocations<ExecutionSpace>& s,
                                              const MaternParameters& p, unsigned long seed,
                                              int tile = default_tile_size) {
  const long n = static_cast<long>(s.x.extent(0));
  Matrix<ExecutionSpace> l(Kokkos::view_alloc(space, "pk::matern::synthetic_factor"), n, n);
  generate_covariance(space, s, p, l);
  cholesky_in_place(space, l, tile);
  // gemv reads the whole matrix: clear the strict upper triangle the factorisation left.
  Kokkos::parallel_for(
      "pk::matern::clear_upper", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, n * n),
      KOKKOS_LAMBDA(const long k) {
        const long i = k % n, j = k / n;
        if (j > i) l(i, j) = 0;
      });
  Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> host_e(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::matern::white_noise_host"), n);
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal(0, 1);
  for (long i = 0; i < n; ++i) host_e(i) = normal(engine);
  Vector<ExecutionSpace> e(Kokkos::view_alloc(space, "pk::matern::white_noise"), n),
      z(Kokkos::view_alloc(space, "pk::matern::observations"), n);
  Kokkos::deep_copy(space, e, host_e);
  blas::gemv(space, "N", 1.0, l, e, 0.0, z);
  space.fence();
  return z;
}

struct Fit {
  MaternParameters estimate;
  double log_likelihood = 0;
  int evaluations = 0;
  bool converged = false;
  double seconds = 0;
  bool interrupted = false;  // by SIGINT/SIGTERM: the estimate is the best so far
};

namespace Details {
// BOBYQA over (sigma^2, beta, nu), or over (beta, nu) with sigma^2 profiled out, of the
// likelihood whose parts parts_at(p) gives (nothing where C is not positive definite: -inf).
template <class PartsAt>
Fit maximise_likelihood(const PartsAt& parts_at, const MaternParameters& start, const OptimizerSettings& settings,
                        bool profile_variance) {
  Kokkos::Timer timer;
  const auto objective = [&](const Parameters& theta) {
    const std::optional<LikelihoodParts> parts = profile_variance
                                                     ? parts_at(MaternParameters{1.0, theta[0], theta[1]})
                                                     : parts_at(MaternParameters{theta[0], theta[1], theta[2]});
    if (!parts) return -std::numeric_limits<double>::infinity();
    return profile_variance ? parts->profiled_value() : parts->value();
  };
  if (!profile_variance) {
    const Maximum m = maximize_bobyqa(objective, {start.variance, start.range, start.smoothness}, settings);
    return Fit{{m.at[0], m.at[1], m.at[2]}, m.value, m.evaluations, m.converged, timer.seconds(), m.interrupted};
  }
  const Maximum m = maximize_bobyqa(objective, {start.range, start.smoothness}, settings);
  const std::optional<LikelihoodParts> parts = parts_at(MaternParameters{1.0, m.at[0], m.at[1]});
  require(parts.has_value(), "MLE: the covariance at the maximum is not positive definite");
  return Fit{{parts->profiled_variance(), m.at[0], m.at[1]},
             m.value,
             m.evaluations + 1,
             m.converged,
             timer.seconds(),
             m.interrupted};
}
}  // namespace Details

// Maximum-likelihood estimate of (sigma^2, beta, nu) from `start` within the bounds, all
// three by BOBYQA as ExaGeoStat does; or, with profile_variance, BOBYQA over (beta, nu)
// with sigma^2 at its closed-form maximiser z^T R^-1 z / n (the same maximum, about half
// the evaluations). Evaluations where C is not positive definite count as -inf.
template <class ExecutionSpace>
Fit fit_matern(const ExecutionSpace& space, const DeviceLocations<ExecutionSpace>& s, const Vector<ExecutionSpace>& z,
               const MaternParameters& start, const OptimizerSettings& settings = {}, bool profile_variance = false) {
  const long n = static_cast<long>(z.extent(0));
  Matrix<ExecutionSpace> work(Kokkos::view_alloc(space, "pk::matern::fit_work"), n, n);
  return Details::maximise_likelihood(
      [&](const MaternParameters& p) -> std::optional<LikelihoodParts> {
        try {
          return log_likelihood_parts(space, s, z, p, work);
        } catch (const Error&) {
          return std::nullopt;
        }
      },
      start, settings, profile_variance);
}

}  // namespace pk::besselk
