#pragma once
// A synthetic 3D-Var experiment: a smooth truth, a background whose error is drawn from B
// (x_b = x_t + V w, w white noise), and noisy observations of the truth at random points.
#include <pk/core/blas.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/rfilter/observations.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <random>

namespace pk::rfilter {

struct SyntheticSettings {
  Grid grid;
  BackgroundCovariance covariance;
  long observations = 0;
  double observation_std = 0.1;
  unsigned long seed = 1;
};

template <class ExecutionSpace>
struct SyntheticCase {
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>;
  Vector truth, background;
  ObservationSet observations;
};

template <class ExecutionSpace>
SyntheticCase<ExecutionSpace> make_synthetic_case(const ExecutionSpace& space, const SyntheticSettings& s) {
  check_grid(s.grid);
  check_covariance(s.covariance);
  require(s.observations >= 1, "3D-Var: need at least one observation (got " + std::to_string(s.observations) + ")");
  require(std::isfinite(s.observation_std) && s.observation_std > 0,
          "3D-Var: observation error std must be > 0 (got " + std::to_string(s.observation_std) + ")");
  using Vector = typename SyntheticCase<ExecutionSpace>::Vector;
  const Grid g = s.grid;
  std::mt19937_64 engine(s.seed);
  std::normal_distribution<double> normal(0.0, 1.0);

  SyntheticCase<ExecutionSpace> result;
  result.truth = Vector(Kokkos::view_alloc(space, "pk::rfilter::synthetic::truth"), g.size());
  result.background = Vector(Kokkos::view_alloc(space, "pk::rfilter::synthetic::background"), g.size());
  auto truth = pk::host_mirror(result.truth);
  auto noise = pk::host_mirror(result.background);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const double x = 2 * 3.14159265358979323846 * i / g.nx, y = 2 * 3.14159265358979323846 * j / g.ny,
                     z = 2 * 3.14159265358979323846 * k / g.nz;
        truth(i + g.nx * (j + static_cast<long>(g.ny) * k)) = std::sin(x) * std::cos(y) + 0.5 * std::sin(2 * x + z);
      }
  for (long i = 0; i < g.size(); ++i) noise(i) = normal(engine);
  Kokkos::deep_copy(space, result.truth, truth);
  Kokkos::deep_copy(space, result.background, noise);
  CovarianceRoot<ExecutionSpace>(space, g, s.covariance).apply(result.background);  // V w
  blas::axpby(space, 1.0, result.truth, 1.0, result.background);

  auto& obs = result.observations;
  auto uniform_in = [&](int n) { return n > 1 ? std::uniform_real_distribution<double>(0.0, n - 1.0)(engine) : 0.0; };
  for (long o = 0; o < s.observations; ++o) {
    obs.x.push_back(uniform_in(g.nx));
    obs.y.push_back(uniform_in(g.ny));
    obs.z.push_back(uniform_in(g.nz));
    obs.value.push_back(0.0);
    obs.error_std.push_back(s.observation_std);
  }
  const auto located = to_space(space, obs, g);
  typename Observations<typename ExecutionSpace::memory_space>::Vector exact(
      Kokkos::view_alloc(space, "pk::rfilter::synthetic::h_truth"), s.observations);
  interpolate(space, g, located, result.truth, exact);
  const auto exact_host = readable_on_host(space, exact);
  for (long o = 0; o < s.observations; ++o) obs.value[o] = exact_host(o) + s.observation_std * normal(engine);
  return result;
}

// Root-mean-square difference of two fields of `space`.
template <class ExecutionSpace, class Vector>
double rms_difference(const ExecutionSpace& space, const Vector& a, const Vector& b) {
  const auto ha = readable_on_host(space, a);
  const auto hb = readable_on_host(space, b);
  double sum = 0;
  for (std::size_t i = 0; i < ha.extent(0); ++i) sum += (ha(i) - hb(i)) * (ha(i) - hb(i));
  return std::sqrt(sum / static_cast<double>(ha.extent(0)));
}

}  // namespace pk::rfilter
