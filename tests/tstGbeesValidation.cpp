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

// The paper reports BC = 0.9027 at t = 1 (before the measurement). This implementation
// follows the published scheme term by term and measures about 0.83 with 10^5 samples: its
// density is wider than the ensemble across the thin sheet the flow contracts to (see
// the GBEES section of README.md). The bound below guards that level; the gap to the
// paper's value is open.
TYPED_TEST(GbeesValidation, Lorenz63MatchesMonteCarloBeforeTheMeasurement) {
  using Space = TypeParam;
  Space space;
  const Parameters p = lorenz63_paper();
  Solver<Space, Lorenz63> solver(space, Lorenz63{}, p);
  MonteCarlo<Space, Lorenz63> ensemble(space, Lorenz63{}, p, 100000);
  const HostCells start = solver.cells();
  const double bc0 = bhattacharyya(start.probability, ensemble.kde_on_cells(start));
  ASSERT_TRUE(solver.advance_to(1.0));
  ensemble.advance_to(1.0);
  const HostCells cells = solver.cells();
  const double bc1 = bhattacharyya(cells.probability, ensemble.kde_on_cells(cells));
  std::printf("Lorenz '63: BC(0) = %.4f, BC(1-) = %.4f over %zu cells (paper: 0.9027)\n", bc0, bc1, cells.size());
  EXPECT_GT(bc0, 0.995);
  EXPECT_GT(bc1, 0.80);
  EXPECT_LE(bc1, 1.0);
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
