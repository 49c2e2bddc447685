// GBEES against independent references: a Monte Carlo ensemble (RK4, Gaussian KDE with
// Scott's bandwidth) for the paper's Lorenz '63 case at t = 1 (Table 1), each PDF of an
// ensemble against its own one-PDF run, and the temporal convergence of sec. 5.2.2 against
// a run with epsilon = 0.01.
#include "spaces.hpp"

#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/solver.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

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

// An ensemble of three Lorenz '63 PDFs in one grid, their means whole cells apart: each
// against the one-PDF run from its own mean at t = 0.5, cell by cell (BC over the union of
// their cells). They differ only in the time step: the members share the smallest CFL
// step, so each steps at least as finely as alone (sec. 5.2.2's study bounds the change).
TYPED_TEST(GbeesValidation, Lorenz63EnsembleMembersMatchTheirOwnRuns) {
  using Space = TypeParam;
  Space space;
  Parameters p = lorenz63_paper();
  p.end_time = 0.5;
  p.measurements.clear();
  const std::vector<std::vector<double>> means = {p.initial_mean, {-6, -8, 14}, {-14, -12, 6}};
  p.member_means = means;
  Solver<Space, Lorenz63> solver(space, Lorenz63{}, p);
  ASSERT_TRUE(solver.run());
  const HostCells cells = solver.cells();
  for (std::size_t e = 0; e < means.size(); ++e) {
    Parameters alone = p;
    alone.member_means.clear();
    alone.initial_mean = means[e];
    Solver<Space, Lorenz63> single(space, Lorenz63{}, alone);
    ASSERT_TRUE(single.run());
    // Index i of the member's grid is i - offset in the one-PDF run's (centred on its mean).
    std::map<std::vector<std::int64_t>, double> q;
    const HostCells reference = single.cells(), member = member_cells(cells, static_cast<int>(e));
    for (std::size_t c = 0; c < reference.size(); ++c)
      q[{reference.index.begin() + 3 * c, reference.index.begin() + 3 * c + 3}] = reference.probability[c];
    double bc = 0;
    for (std::size_t c = 0; c < member.size(); ++c) {
      std::vector<std::int64_t> i(member.index.begin() + 3 * c, member.index.begin() + 3 * c + 3);
      for (int d = 0; d < 3; ++d) i[d] -= std::llround((means[e][d] - means[0][d]) / p.cell_width[d]);
      const auto it = q.find(i);
      if (it != q.end()) bc += std::sqrt(member.probability[c] * it->second);
    }
    std::printf("Lorenz '63 ensemble member %zu: %zu cells (alone %zu), %lld steps (alone %lld), BC %.5f\n", e + 1,
                member.size(), reference.size(), static_cast<long long>(solver.statistics().steps),
                static_cast<long long>(single.statistics().steps), bc);
    EXPECT_GT(bc, 0.98) << "member " << e + 1;
  }
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
