#pragma once
// The independent reference for GBEES: Monte Carlo samples of the same initial Gaussian,
// propagated with classical RK4 (a Kokkos kernel), measurements applied as importance
// weights, and a Gaussian kernel density estimate (Scott's bandwidth, as scipy's
// gaussian_kde with weights) evaluated at the grid's cell centres.
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/gbees/details/gaussian.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/models.hpp>
#include <pk/gbees/parameters.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace pk::gbees {

template <class ExecutionSpace, class Model>
class MonteCarlo {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  // Sample k, component d at (k, d): LayoutLeft so that a kernel over samples reads each
  // component coalesced.
  using Samples = Kokkos::View<double**, Kokkos::LayoutLeft, memory_space>;

  MonteCarlo(const ExecutionSpace& space, const Model& model, const Parameters& parameters, std::int64_t samples,
             std::uint64_t seed = 20261123)
      : space_(space),
        model_(model),
        n_(model.dimension()),
        samples_(Kokkos::view_alloc(space, "pk::gbees::monte_carlo::samples"), samples, model.dimension()),
        weight_(Kokkos::view_alloc(space, "pk::gbees::monte_carlo::weight"), samples) {
    require(samples >= 100, "Monte Carlo: need at least 100 samples (got " + std::to_string(samples) + ")");
    validate(parameters, n_);
    Details::RealArray mean, std_dev;
    for (int d = 0; d < n_; ++d) {
      mean.v[d] = parameters.initial_mean[d];
      std_dev.v[d] = parameters.initial_std[d];
    }
    draw(mean, std_dev, seed);
  }

  // Samples of the initial Gaussian, weights 1. (Its own member function: a CUDA lambda
  // cannot live in a constructor.)
  void draw(const Details::RealArray& mean, const Details::RealArray& std_dev, std::uint64_t seed) {
    Kokkos::Random_XorShift64_Pool<ExecutionSpace> pool(seed);
    auto x = samples_;
    auto w = weight_;
    const int n = n_;
    Kokkos::parallel_for(
        "pk::gbees::monte_carlo::draw", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, samples_.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t k) {
          auto generator = pool.get_state();
          for (int d = 0; d < n; ++d) x(k, d) = generator.normal(mean.v[d], std_dev.v[d]);
          pool.free_state(generator);
          w(k) = 1;
        });
  }

  double time() const { return time_; }
  std::int64_t size() const { return samples_.extent(0); }
  // Kish's effective sample size (sum w)^2 / sum w^2: what the weights leave of size().
  double effective_size() const {
    const auto w = readable_on_host(space_, weight_);
    double sum = 0, squares = 0;
    for (std::size_t k = 0; k < w.size(); ++k) sum += w(k), squares += w(k) * w(k);
    return squares > 0 ? sum * sum / squares : 0;
  }

  // RK4 with equal steps no longer than max_dt up to time t.
  void advance_to(double t, double max_dt = 1e-3) {
    if (t <= time_) return;
    const int steps = static_cast<int>(std::ceil((t - time_) / max_dt));
    const double dt = (t - time_) / steps;
    auto x = samples_;
    const auto model = model_;
    const int n = n_;
    Kokkos::parallel_for(
        "pk::gbees::monte_carlo::rk4", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, samples_.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t k) {
          double y[max_dimension], k1[max_dimension], k2[max_dimension], k3[max_dimension], k4[max_dimension],
              tmp[max_dimension];
          for (int d = 0; d < n; ++d) y[d] = x(k, d);
          for (int s = 0; s < steps; ++s) {
            for (int d = 0; d < n; ++d) k1[d] = model(d, y);
            for (int d = 0; d < n; ++d) tmp[d] = y[d] + 0.5 * dt * k1[d];
            for (int d = 0; d < n; ++d) k2[d] = model(d, tmp);
            for (int d = 0; d < n; ++d) tmp[d] = y[d] + 0.5 * dt * k2[d];
            for (int d = 0; d < n; ++d) k3[d] = model(d, tmp);
            for (int d = 0; d < n; ++d) tmp[d] = y[d] + dt * k3[d];
            for (int d = 0; d < n; ++d) k4[d] = model(d, tmp);
            for (int d = 0; d < n; ++d) y[d] += dt / 6 * (k1[d] + 2 * k2[d] + 2 * k3[d] + k4[d]);
          }
          for (int d = 0; d < n; ++d) x(k, d) = y[d];
        });
    time_ = t;
  }

  // Importance weights: w_k *= likelihood(x_k) of the Gaussian measurement (as the grid's
  // Bayes update, Details::likelihood).
  void measure(const Measurement& m) {
    auto x = samples_;
    auto w = weight_;
    const Measurement meas = m;
    const int n = n_;
    Kokkos::parallel_for(
        "pk::gbees::monte_carlo::measure", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, samples_.extent(0)),
        KOKKOS_LAMBDA(const std::int64_t k) {
          double y[max_dimension];
          for (int d = 0; d < n; ++d) y[d] = x(k, d);
          w(k) *= Details::likelihood(meas, y);
        });
  }

  // Eq. (9) as the paper evaluates it (Table 1): BC between the PDF GBEES reports (the
  // cells at or above p*, see above_threshold) and this ensemble's KDE on those cells.
  double bhattacharyya(const HostCells& cells, double threshold) const {
    const HostCells reported = above_threshold(cells, threshold);
    return pk::gbees::bhattacharyya(reported.probability, kde_on_cells(reported));
  }

  // The BC of each axis' 1-D marginal, the grid's against the samples' binned on its cells
  // (marginal_bhattacharyya): no KDE, so no bandwidth to flatter or blur either side.
  std::vector<double> marginal_bhattacharyya(const HostCells& cells) const {
    const auto x = readable_on_host(space_, samples_);
    const auto w = readable_on_host(space_, weight_);
    std::vector<double> samples(x.size()), weights(w.data(), w.data() + w.size());
    for (std::size_t k = 0; k < weights.size(); ++k)
      for (int d = 0; d < n_; ++d) samples[k * n_ + d] = x(k, d);
    return pk::gbees::marginal_bhattacharyya(cells, samples, weights);
  }

  // The weighted Gaussian KDE with Scott's factor n_eff^(-1/(n+4)) at the cell centres,
  // times the cell volume and normalised to sum 1 over the cells: the MC counterpart of
  // the grid's cell probabilities.
  std::vector<double> kde_on_cells(const HostCells& cells) const {
    require(cells.n == n_,
            "KDE: the cells are " + std::to_string(cells.n) + "-D, the samples " + std::to_string(n_) + "-D");
    const std::int64_t count = samples_.extent(0);
    const auto host_x = readable_on_host(space_, samples_);
    const auto host_w = readable_on_host(space_, weight_);
    // Weighted mean and covariance (unbiased with reliability weights, as numpy.cov).
    double wsum = 0, w2sum = 0, mean[max_dimension] = {};
    for (std::int64_t k = 0; k < count; ++k) {
      wsum += host_w(k);
      for (int d = 0; d < n_; ++d) mean[d] += host_w(k) * host_x(k, d);
    }
    require(wsum > 0, "KDE: every sample has weight 0");
    for (int d = 0; d < n_; ++d) mean[d] /= wsum;
    double cov[max_dimension][max_dimension] = {};
    for (std::int64_t k = 0; k < count; ++k) {
      const double w = host_w(k) / wsum;
      w2sum += w * w;
      for (int a = 0; a < n_; ++a)
        for (int b = 0; b <= a; ++b) cov[a][b] += w * (host_x(k, a) - mean[a]) * (host_x(k, b) - mean[b]);
    }
    const double neff = 1.0 / w2sum;
    const double factor = std::pow(neff, -1.0 / (n_ + 4));
    // Kernel covariance = cov / (1 - sum w^2) * factor^2; its Cholesky factor L.
    double L[max_dimension][max_dimension] = {};
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b <= a; ++b) {
        double s = cov[a][b] / (1 - w2sum) * factor * factor;
        for (int k = 0; k < b; ++k) s -= L[a][k] * L[b][k];
        if (a == b) {
          require(s > 0, "KDE: the sample covariance is singular");
          L[a][a] = std::sqrt(s);
        } else {
          L[a][b] = s / L[b][b];
        }
      }
    // Whitened samples z = L^-1 x (only those with weight), whitened cell centres.
    auto solve = [&](const double* x, double* z) {
      for (int a = 0; a < n_; ++a) {
        double s = x[a];
        for (int k = 0; k < a; ++k) s -= L[a][k] * z[k];
        z[a] = s / L[a][a];
      }
    };
    std::vector<std::int64_t> used;
    for (std::int64_t k = 0; k < count; ++k)
      if (host_w(k) > 1e-300) used.push_back(k);
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> zs(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::gbees::kde::samples_host"), used.size(), n_);
    Kokkos::View<double*, Kokkos::HostSpace> ws(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::gbees::kde::weights_host"), used.size());
    for (std::size_t u = 0; u < used.size(); ++u) {
      double x[max_dimension], z[max_dimension];
      for (int d = 0; d < n_; ++d) x[d] = host_x(used[u], d);
      solve(x, z);
      for (int d = 0; d < n_; ++d) zs(u, d) = z[d];
      ws(u) = host_w(used[u]) / wsum;
    }
    const std::size_t m = cells.size();
    Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> zp(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::gbees::kde::points_host"), m, n_);
    for (std::size_t c = 0; c < m; ++c) {
      double x[max_dimension], z[max_dimension];
      for (int d = 0; d < n_; ++d) x[d] = cells.centre(c, d);
      solve(x, z);
      for (int d = 0; d < n_; ++d) zp(c, d) = z[d];
    }
    const auto samples = readable_on(space_, zs);
    const auto weights = readable_on(space_, ws);
    const auto points = readable_on(space_, zp);
    Kokkos::View<double*, memory_space> density(Kokkos::view_alloc(space_, "pk::gbees::kde::density"), m);
    const int n = n_;
    const std::int64_t used_count = static_cast<std::int64_t>(used.size());
    Kokkos::parallel_for(
        "pk::gbees::kde::evaluate", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const std::int64_t c) {
          double p[max_dimension];
          for (int d = 0; d < n; ++d) p[d] = points(c, d);
          double sum = 0;
          for (std::int64_t k = 0; k < used_count; ++k) {
            double r2 = 0;
            for (int d = 0; d < n; ++d) {
              const double e = p[d] - samples(k, d);
              r2 += e * e;
            }
            if (r2 < 80) sum += weights(k) * ::exp(-0.5 * r2);
          }
          density(c) = sum;
        });
    const auto host_density = readable_on_host(space_, density);
    std::vector<double> q(m);
    double total = 0;
    for (std::size_t c = 0; c < m; ++c) total += host_density(c);
    require(total > 0, "KDE: zero density on every cell");
    for (std::size_t c = 0; c < m; ++c) q[c] = host_density(c) / total;
    return q;
  }

 private:
  ExecutionSpace space_;
  Model model_;
  int n_;
  Samples samples_;
  Kokkos::View<double*, memory_space> weight_;
  double time_ = 0;
};

}  // namespace pk::gbees
