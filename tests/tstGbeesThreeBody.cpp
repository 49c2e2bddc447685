// The restricted three-body models (PCR3BP, CR3BP): their drift on every space (zero at
// the Lagrange points, the Jacobi constant kept along an RK4 trajectory, gbees-cuda's
// PCR3BP orbit reproduced), and a short GBEES run on every space against the host's.
// GbeesThreeBodyValidation compares GBEES with Monte Carlo on gbees-cuda's two cases.
#include "gbees_agreement.hpp"
#include "spaces.hpp"

#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/solver.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

using namespace pk::gbees;

template <class Space>
class GbeesThreeBody : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesThreeBody, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

template <class Space>
class GbeesThreeBodyValidation : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesThreeBodyValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

constexpr double earth_moon_mu = 1.215058560962404e-2;

// The drift of `model` at each state of `states` (row-major, dimension() values each),
// evaluated in a kernel on Space. (Free functions: CUDA lambdas cannot live in a test body.)
template <class Space, class Model>
std::vector<double> drift_on_space(const Model& model, const std::vector<double>& states) {
  const int n = model.dimension();
  const int count = static_cast<int>(states.size()) / n;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> host("pk::test::gbees::states", count, n);
  for (int c = 0; c < count; ++c)
    for (int d = 0; d < n; ++d) host(c, d) = states[c * n + d];
  const auto x = pk::test::to_space(Space{}, host);
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> f("pk::test::gbees::drift", count, n);
  Kokkos::parallel_for(
      "pk::test::gbees::drift", Kokkos::RangePolicy<Space>(0, count), KOKKOS_LAMBDA(const int c) {
        double y[max_dimension];
        for (int d = 0; d < n; ++d) y[d] = x(c, d);
        for (int d = 0; d < n; ++d) f(c, d) = model(d, y);
      });
  const auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, f);
  return std::vector<double>(back.data(), back.data() + count * n);
}

// Classical RK4 of the drift from x0 over `duration` in `steps` equal steps, in a kernel on
// Space: the final state.
template <class Space, class Model>
std::vector<double> rk4_on_space(const Model& model, const std::vector<double>& x0, double duration, int steps) {
  const int n = model.dimension();
  Details::RealArray start;
  for (int d = 0; d < n; ++d) start.v[d] = x0[d];
  Kokkos::View<double*, typename Space::memory_space> end("pk::test::gbees::rk4_end", n);
  const double dt = duration / steps;
  Kokkos::parallel_for(
      "pk::test::gbees::rk4", Kokkos::RangePolicy<Space>(0, 1), KOKKOS_LAMBDA(const int) {
        double y[max_dimension], k[4][max_dimension], tmp[max_dimension];
        for (int d = 0; d < n; ++d) y[d] = start.v[d];
        for (int s = 0; s < steps; ++s) {
          for (int stage = 0; stage < 4; ++stage) {
            const double a = stage == 0 ? 0.0 : stage == 3 ? dt : 0.5 * dt;
            for (int d = 0; d < n; ++d) tmp[d] = y[d] + (stage == 0 ? 0.0 : a * k[stage - 1][d]);
            for (int d = 0; d < n; ++d) k[stage][d] = model(d, tmp);
          }
          for (int d = 0; d < n; ++d) y[d] += dt / 6 * (k[0][d] + 2 * k[1][d] + 2 * k[2][d] + k[3][d]);
        }
        for (int d = 0; d < n; ++d) end(d) = y[d];
      });
  const auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, end);
  return std::vector<double>(back.data(), back.data() + n);
}

// The x of the collinear point between `lo` and `hi` where the rotating-frame x acceleration
// at rest on the x axis vanishes (bisection on the host: independent of the model functor).
double collinear_point(double mu, double lo, double hi) {
  auto ax = [mu](double x) {
    const double d1 = x + mu, d2 = x - 1 + mu;
    return x - (1 - mu) * d1 / std::pow(std::fabs(d1), 3) - mu * d2 / std::pow(std::fabs(d2), 3);
  };
  EXPECT_LT(ax(lo) * ax(hi), 0.0) << "no sign change in [" << lo << ", " << hi << "]";
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (ax(lo) * ax(mid) <= 0 ? hi : lo) = mid;
  }
  return 0.5 * (lo + hi);
}

// L1, L2 (collinear, bracketed around the Hill radius of the secondary) and L4, L5
// (equilateral: (1/2 - mu, +-sqrt(3)/2)) as planar positions.
std::vector<std::array<double, 2>> lagrange_points(double mu) {
  const double secondary = 1 - mu, hill = std::cbrt(mu / 3);
  return {{collinear_point(mu, secondary - 2 * hill, secondary - hill / 2), 0},
          {collinear_point(mu, secondary + hill / 2, secondary + 2 * hill), 0},
          {0.5 - mu, std::sqrt(3.0) / 2},
          {0.5 - mu, -std::sqrt(3.0) / 2}};
}

TYPED_TEST(GbeesThreeBody, DriftVanishesAtTheLagrangePointsAndNowhereNear) {
  using Space = TypeParam;
  for (const double mu : {earth_moon_mu, PCR3BP{}.mu, CR3BP{}.mu}) {
    std::vector<double> planar, spatial;
    for (const auto& p : lagrange_points(mu)) {
      planar.insert(planar.end(), {p[0], p[1], 0, 0});
      spatial.insert(spatial.end(), {p[0], p[1], 0, 0, 0, 0});
    }
    // At rest 1e-3 off L1 the drift is not zero: the equilibrium is not a zero everywhere.
    const double off = planar[0] + 1e-3;
    planar.insert(planar.end(), {off, 0, 0, 0});
    spatial.insert(spatial.end(), {off, 0, 0, 0, 0, 0});
    const std::vector<double> f4 = drift_on_space<Space>(PCR3BP{mu}, planar);
    const std::vector<double> f6 = drift_on_space<Space>(CR3BP{mu}, spatial);
    for (int point = 0; point < 4; ++point) {
      for (int d = 0; d < 4; ++d) EXPECT_NEAR(f4[point * 4 + d], 0.0, 1e-12) << "mu " << mu << " L" << point + 1;
      for (int d = 0; d < 6; ++d) EXPECT_NEAR(f6[point * 6 + d], 0.0, 1e-12) << "mu " << mu << " L" << point + 1;
    }
    EXPECT_GT(std::fabs(f4[4 * 4 + 2]), 1e-4) << "mu " << mu;
    EXPECT_EQ(f6[4 * 6 + 3], f4[4 * 4 + 2]);  // the planar model is the spatial one at z = 0
  }
}

// gbees-cuda's PCR3BP example: its mean, propagated over its period T, gives the range and
// bearing from Enceladus of its first measurement (measurements/PCR3BP/measurement1.txt,
// 0.004807522170180 LU at 1.573600972503426 rad), and the Jacobi constant stays put.
TYPED_TEST(GbeesThreeBody, ReproducesGbeesCudasPcr3bpOrbitAndKeepsTheJacobiConstant) {
  using Space = TypeParam;
  const PCR3BP model;
  const Parameters p = pcr3bp_enceladus();
  const std::vector<double> end = rk4_on_space<Space>(model, p.initial_mean, p.end_time, 20000);
  const double dx = end[0] - (1 - model.mu);
  EXPECT_NEAR(std::hypot(dx, end[1]), 0.004807522170180, 1e-9);
  EXPECT_NEAR(std::atan2(end[1], dx), 1.573600972503426, 1e-7);
  const double c0 = model.jacobi(p.initial_mean.data()), c1 = model.jacobi(end.data());
  EXPECT_NEAR(c1, c0, 1e-10 * std::fabs(c0));

  // CR3BP off the plane (Europa's case lifted by 0.002 in z, 0.003 in vz): the Jacobi
  // constant is kept while the state moves far.
  const CR3BP spatial;
  std::vector<double> x0 = cr3bp_europa().initial_mean;
  x0[2] += 0.002;
  x0[5] += 0.003;
  const std::vector<double> x1 = rk4_on_space<Space>(spatial, x0, 0.8, 20000);
  const double j0 = spatial.jacobi(x0.data()), j1 = spatial.jacobi(x1.data());
  EXPECT_NEAR(j1, j0, 1e-10 * std::fabs(j0));
  EXPECT_GT(std::hypot(x1[0] - x0[0], x1[1] - x0[1]), 5e-3);
  EXPECT_GT(std::fabs(x1[2] - x0[2]), 1e-4);
}

// div f = 0 (the flow is Hamiltonian): central differences of each f_j along x_j add to 0.
TEST(GbeesThreeBodyDrift, IsDivergenceFree) {
  const CR3BP model{earth_moon_mu};
  const double states[3][6] = {
      {0.8, 0.1, 0.05, 0.01, -0.2, 0.03}, {1.1, -0.3, -0.1, 0.3, 0.1, -0.05}, {-0.5, 0.6, 0.2, -0.1, 0.05, 0.2}};
  for (const auto& x : states) {
    double divergence = 0, scale = 0;
    for (int j = 0; j < 6; ++j) {
      double plus[6], minus[6];
      for (int d = 0; d < 6; ++d) plus[d] = minus[d] = x[d];
      plus[j] += 1e-6;
      minus[j] -= 1e-6;
      divergence += (model(j, plus) - model(j, minus)) / 2e-6;
      scale += std::fabs(model(j, x));
    }
    EXPECT_LT(std::fabs(divergence), 1e-6 * scale);
  }
}

// Every enabled space against the host on a short PCR3BP run (gbees-cuda's case on cells
// twice as wide): the same steps and cells, probabilities within 1e-10 in the 1-norm.
TYPED_TEST(GbeesThreeBody, AgreesWithTheHostSpaceOnAShortPcr3bpRun) {
  using Space = TypeParam;
  if (pk::test::is_host_space<Space>) GTEST_SKIP() << pk::test::host_against_itself;
  Parameters p = pcr3bp_enceladus();
  for (std::size_t d = 0; d < 4; ++d) p.cell_width[d] = p.initial_std[d];
  p.end_time = 0.02;
  p.prune_interval = 10;
  pk::test::expect_same_run_as_host<Space>(PCR3BP{}, p);
}

// BC against Monte Carlo over the cells >= p* (as tstGbeesValidation), at the start and at
// `end`, printed; returns {BC(0), BC(end)}.
template <class Space, class Model>
std::array<double, 2> bc_against_monte_carlo(const Model& model, const Parameters& p, std::int64_t samples) {
  Space space;
  Solver<Space, Model> solver(space, model, p);
  MonteCarlo<Space, Model> ensemble(space, model, p, samples);
  const double bc0 = ensemble.bhattacharyya(solver.cells(), p.threshold);
  EXPECT_TRUE(solver.run());
  ensemble.advance_to(p.end_time, 1e-4);
  const HostCells cells = solver.cells();
  const double bc1 = ensemble.bhattacharyya(cells, p.threshold);
  std::printf("%s: BC(0) = %.4f, BC(%.3f) = %.4f over %zu cells >= p* of %zu, %lld steps\n", Model::name().c_str(), bc0,
              p.end_time, bc1, above_threshold(cells, p.threshold).size(), cells.size(),
              static_cast<long long>(solver.statistics().steps));
  return {bc0, bc1};
}

// gbees-cuda's PCR3BP case (Enceladus, h = std / 2, p* = 1e-7) to t = 0.05 of its 0.93 TU:
// near Enceladus the PDF shears fast into a thin sheet and the grid's numerical diffusion
// widens it across (docs/gbees.md), so the BC falls with time: 0.935 at t = 0.05 and 0.69 at
// t = 0.1 measured on OpenMP with 2e4 samples. 0.90 leaves room for the sampling noise.
TYPED_TEST(GbeesThreeBodyValidation, Pcr3bpMatchesMonteCarlo) {
  Parameters p = pcr3bp_enceladus();
  p.end_time = 0.05;
  const auto bc = bc_against_monte_carlo<TypeParam>(PCR3BP{}, p, 20000);
  EXPECT_GT(bc[0], 0.98);
  EXPECT_GT(bc[1], 0.90);
}

// gbees-cuda's CR3BP case (Europa) on cells 1.5 std wide (its 2.5e5 times fewer initial
// cells: 5^6 instead of 13^6) to t = 0.05 of its 0.89 TU. Measured on OpenMP with 1e4
// samples: BC(0) = 0.968 (the 6-D KDE's kernel widens the samples' Gaussian), BC(0.05) = 0.918.
TYPED_TEST(GbeesThreeBodyValidation, Cr3bpMatchesMonteCarlo) {
  Parameters p = cr3bp_europa();
  for (std::size_t d = 0; d < 6; ++d) p.cell_width[d] = 1.5 * p.initial_std[d];
  p.end_time = 0.05;
  const auto bc = bc_against_monte_carlo<TypeParam>(CR3BP{}, p, 10000);
  EXPECT_GT(bc[0], 0.95);
  EXPECT_GT(bc[1], 0.89);
}

}  // namespace
