// GBEES tutorial: carry the probability density (PDF) of the Lorenz '63 system forward in
// time on a sparse grid, then fold in one measurement by Bayes' rule.
//
//   build/openmp/examples/pk-example-gbees-lorenz63
//
// What it checks (exit status 1 if a check fails): the cell probabilities sum to 1; the
// PDF's mean follows the trajectory of the initial mean while the PDF is still narrow; the
// measurement pulls the mean of x3 towards the measured value and narrows the PDF.
#include <pk/gbees/solver.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace {

// The PDF's mean and the standard deviation of x3, summed over the cells on the host.
struct Moments {
  std::array<double, 3> mean{};
  double std_x3 = 0;
  double total = 0;
};

Moments moments(const pk::gbees::HostCells& cells) {
  Moments m;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    m.total += cells.probability[c];
    for (int d = 0; d < 3; ++d) m.mean[d] += cells.probability[c] * cells.centre(c, d);
  }
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const double dx = cells.centre(c, 2) - m.mean[2];
    m.std_x3 += cells.probability[c] * dx * dx;
  }
  m.std_x3 = std::sqrt(m.std_x3);
  return m;
}

// The deterministic trajectory of the initial mean, by classic Runge-Kutta. A model is a
// plain functor, so the same pk::gbees::Lorenz63 the solver uses runs on the host too.
std::array<double, 3> trajectory(const pk::gbees::Lorenz63& f, std::array<double, 3> x, double t) {
  const int steps = 1000;
  const double h = t / steps;
  auto rate = [&](const std::array<double, 3>& at) {
    return std::array<double, 3>{f(0, at.data()), f(1, at.data()), f(2, at.data())};
  };
  for (int s = 0; s < steps; ++s) {
    std::array<double, 3> k1 = rate(x), y;
    for (int d = 0; d < 3; ++d) y[d] = x[d] + h / 2 * k1[d];
    std::array<double, 3> k2 = rate(y);
    for (int d = 0; d < 3; ++d) y[d] = x[d] + h / 2 * k2[d];
    std::array<double, 3> k3 = rate(y);
    for (int d = 0; d < 3; ++d) y[d] = x[d] + h * k3[d];
    std::array<double, 3> k4 = rate(y);
    for (int d = 0; d < 3; ++d) x[d] += h / 6 * (k1[d] + 2 * k2[d] + 2 * k3[d] + k4[d]);
  }
  return x;
}

template <class Space>
bool run(const Space& space) {
  // The paper's case (GBEES-GPU, sec. 5.1.1): a Gaussian PDF of std 1 around
  // (-11.5, -10, 9.5), cells 0.5 wide, growth threshold p* = 5e-6.
  const pk::gbees::Parameters parameters = pk::gbees::lorenz63_paper();
  const pk::gbees::Lorenz63 model;  // sigma = 4, b = 1, r = 48
  pk::gbees::Solver<Space, pk::gbees::Lorenz63> solver(space, model, parameters);
  std::printf("t = 0: %d cells\n", static_cast<int>(solver.cell_count()));

  // Steps of dt = epsilon * CFL until t = 0.1 (the last step lands on it). The grid grows
  // where probability flows and is pruned every 20 steps.
  const double t = 0.1;
  solver.advance_to(t);
  const pk::gbees::HostCells cells = solver.cells();  // a host copy: keys, centres, probabilities
  const Moments before = moments(cells);
  const auto& mean0 = parameters.initial_mean;
  const auto expected = trajectory(model, {mean0[0], mean0[1], mean0[2]}, t);
  std::printf("t = %.1f: %lld steps, %d cells, total probability %.15f\n", t,
              static_cast<long long>(solver.statistics().steps), static_cast<int>(solver.cell_count()), before.total);
  std::printf("  mean (%.3f, %.3f, %.3f), trajectory of the initial mean (%.3f, %.3f, %.3f)\n", before.mean[0],
              before.mean[1], before.mean[2], expected[0], expected[1], expected[2]);

  // A measurement of x3 (component index 2), 2 above the current mean, with noise std 1.
  pk::gbees::Measurement measurement;
  measurement.time = t;
  measurement.count = 1;
  measurement.component[0] = 2;
  measurement.value[0] = before.mean[2] + 2;
  measurement.std[0] = 1;
  solver.measure(measurement);
  const Moments after = moments(solver.cells());
  // For a Gaussian prior of std s the posterior mean moves by 2 s^2 / (s^2 + 1).
  const double s2 = before.std_x3 * before.std_x3, gaussian_shift = 2 * s2 / (s2 + 1);
  std::printf("measured x3 = %.3f: mean of x3 %.3f -> %.3f (Gaussian prior: %+.3f), std %.3f -> %.3f\n",
              measurement.value[0], before.mean[2], after.mean[2], gaussian_shift, before.std_x3, after.std_x3);

  bool ok = true;
  auto check = [&](bool passed, const char* what) {
    if (!passed) std::printf("FAILED: %s\n", what);
    ok = ok && passed;
  };
  check(std::abs(before.total - 1) < 1e-12 && std::abs(after.total - 1) < 1e-12, "probabilities sum to 1");
  double distance = 0;
  for (int d = 0; d < 3; ++d) distance = std::max(distance, std::abs(before.mean[d] - expected[d]));
  check(distance < 0.25, "the mean follows the trajectory to within half a cell");
  check(std::abs(after.mean[2] - before.mean[2] - gaussian_shift) < 0.1 * gaussian_shift,
        "the measurement moves the mean of x3 as Bayes' rule does");
  check(after.std_x3 < before.std_x3, "the measurement narrows the PDF");
  return ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);        // Kokkos lives as long as this guard
  using Space = Kokkos::DefaultExecutionSpace;  // the GPU in a CUDA build, else OpenMP
  std::printf("GBEES, Lorenz '63, on %s\n", Space::name());
  const bool ok = run(Space{});
  std::printf("%s\n", ok ? "all checks passed" : "a check failed");
  return ok ? 0 : 1;
}
