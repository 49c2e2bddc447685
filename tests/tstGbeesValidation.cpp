// GBEES against independent references: a Monte Carlo ensemble (RK4, Gaussian KDE with
// Scott's bandwidth) for the paper's Lorenz '63 case at t = 1 (Table 1), and the temporal
// convergence of sec. 5.2.2 against a run with epsilon = 0.01.
#include "spaces.hpp"

#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/solver.hpp>

#include <cstdio>

namespace {

using namespace pk::gbees;

template <class Space>
class GbeesValidation : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// Table 1: BC = 0.9027 at t = 1 (before the measurement), over the cells the paper's code
// records (probability >= p*). Issue #4 asks for it within +-0.01. Over every cell, fringe
// included, the BC is lower, as docs/gbees.md explains: not the paper's measure.
TYPED_TEST(GbeesValidation, Lorenz63MatchesMonteCarloBeforeTheMeasurement) {
  using Space = TypeParam;
  Space space;
  const Parameters p = lorenz63_paper();
  Solver<Space, Lorenz63> solver(space, Lorenz63{}, p);
  MonteCarlo<Space, Lorenz63> ensemble(space, Lorenz63{}, p, 100000);
  const double bc0 = ensemble.bhattacharyya(solver.cells(), p.threshold);
  ASSERT_TRUE(solver.advance_to(1.0));
  ensemble.advance_to(1.0);
  const HostCells cells = solver.cells();
  const double bc1 = ensemble.bhattacharyya(cells, p.threshold);
  std::printf("Lorenz '63: BC(0) = %.4f, BC(1-) = %.4f over the %zu cells >= p* of %zu (paper: 0.9027)\n", bc0, bc1,
              above_threshold(cells, p.threshold).size(), cells.size());
  EXPECT_GT(bc0, 0.995);
  EXPECT_NEAR(bc1, 0.9027, 0.01);
}

// Sec. 5.2.2: E(t) = sum |P - P_ref| against epsilon = 0.01 falls as epsilon does.
TYPED_TEST(GbeesValidation, Lorenz63ConvergesAsTheTimeStepShrinks) {
  using Space = TypeParam;
  Space space;
  Parameters p = lorenz63_paper();
  p.end_time = 0.3;
  p.measurements.clear();
  auto run = [&](double epsilon) {
    Parameters q = p;
    q.epsilon = epsilon;
    Solver<Space, Lorenz63> solver(space, Lorenz63{}, q);
    EXPECT_TRUE(solver.run());
    return solver.cells();
  };
  const HostCells reference = run(0.01);
  double previous = 2;
  for (const double epsilon : {1.0, 0.5, 0.2, 0.1}) {
    const GridComparison c = compare(run(epsilon), reference);
    std::printf("epsilon %.2f: E(0.3) = %.5f, BC = %.6f\n", epsilon, c.one_norm, c.bhattacharyya);
    EXPECT_LT(c.one_norm, previous) << "epsilon " << epsilon;
    EXPECT_GT(c.bhattacharyya, 0.97);
    previous = c.one_norm;
  }
}

}  // namespace
