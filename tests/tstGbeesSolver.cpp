// The GBEES solver's invariants: exact transport at Courant number 1, the mean moved by
// the exact distance under a uniform drift, probability conserved by advection, each PDF of
// an ensemble moving as its own run, and every enabled space agreeing with the host space
// on a short Lorenz '63 run.
#include "gbees_agreement.hpp"
#include "spaces.hpp"

#include <pk/core/error.hpp>
#include <pk/gbees/solver.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace {

using namespace pk::gbees;

template <class Space>
class GbeesSolver : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesSolver, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

Parameters gaussian_2d(double h, double threshold) {
  Parameters p;
  p.initial_mean = {0.3, -0.2};
  p.initial_std = {1, 0.8};
  p.cell_width = {h, h};
  p.threshold = threshold;
  p.prune_interval = 1000;  // these tests look at advection alone
  p.end_time = 10;
  return p;
}

ConstantDrift drift_2d(double u, double v) {
  ConstantDrift d;
  d.n = 2;
  d.velocity[0] = u;
  d.velocity[1] = v;
  return d;
}

// Solid-body rotation about the initial mean: divergence free, every face direction occurs.
struct Rotation {
  double omega = 1, cx = 0.3, cy = -0.2;
  KOKKOS_INLINE_FUNCTION int dimension() const { return 2; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
    return j == 0 ? -omega * (x[1] - cy) + 0.7 : omega * (x[0] - cx);
  }
};

double mean(const HostCells& cells, int axis) {
  double m = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) m += cells.probability[c] * cells.centre(c, axis);
  return m;
}

// With f = (u, 0) and dt = h / u (epsilon 1) each step moves every cell's probability one
// cell downwind exactly: the limiter's factor (1 - u dt / h) and all corner terms vanish.
TYPED_TEST(GbeesSolver, CourantOneTransportsTheGaussianByWholeCellsExactly) {
  using Space = TypeParam;
  Space space;
  for (const int axis : {0, 1})
    for (const double u : {2.0, -2.0}) {
      const Parameters p = gaussian_2d(0.25, 1e-10);
      Solver<Space, ConstantDrift> solver(space, axis == 0 ? drift_2d(u, 0) : drift_2d(0, u), p);
      const HostCells start = solver.cells();
      ASSERT_TRUE(solver.advance_to(0.5));  // 4 steps of h / |u| = 0.125: 4 cells
      EXPECT_EQ(solver.statistics().steps, 4);
      const HostCells end = solver.cells();
      const auto codec = solver.geometry().codec;
      std::unordered_map<std::uint64_t, double> moved;
      for (std::size_t c = 0; c < end.size(); ++c) moved[end.key[c]] = end.probability[c];
      double largest_error = 0, total = 0;
      for (std::size_t c = 0; c < start.size(); ++c) {
        std::uint64_t k = start.key[c];
        for (int s = 0; s < 4; ++s) ASSERT_TRUE(codec.shift(k, axis, u > 0 ? 1 : -1, k));
        const auto it = moved.find(k);
        const double q = it == moved.end() ? 0.0 : it->second;
        largest_error = std::max(largest_error, std::fabs(q - start.probability[c]));
        total += q;
      }
      EXPECT_LT(largest_error, 1e-15) << "axis " << axis << " u " << u;
      EXPECT_NEAR(total, 1.0, 1e-13);
    }
}

// Oblique uniform drift below Courant 1: a conservative scheme moves the mean by exactly
// f t up to the flux limiter's asymmetry, which stays far below a cell width.
TYPED_TEST(GbeesSolver, UniformDriftMovesTheMeanByTheExactDistance) {
  using Space = TypeParam;
  Space space;
  const double h = 0.2, u = 1.0, v = -0.6, t = 1.0;
  Parameters p = gaussian_2d(h, 1e-12);
  p.epsilon = 0.8;
  Solver<Space, ConstantDrift> solver(space, drift_2d(u, v), p);
  const HostCells start = solver.cells();
  ASSERT_TRUE(solver.advance_to(t));
  const HostCells end = solver.cells();
  EXPECT_NEAR(mean(end, 0) - mean(start, 0), u * t, 2e-3 * h);
  EXPECT_NEAR(mean(end, 1) - mean(start, 1), v * t, 2e-3 * h);
}

// Between measurements only advection acts: the flux form moves probability between cells
// without creating any, so before normalisation the total is 1 + clipped - outflow to
// rounding (clipped: negative undershoots set to 0; outflow: through open faces of cells
// below p*, none with a tiny p*).
TYPED_TEST(GbeesSolver, AdvectionConservesProbabilityBetweenMeasurements) {
  using Space = TypeParam;
  Space space;
  {
    Solver<Space, Rotation> solver(space, Rotation{}, gaussian_2d(0.1, 1e-15));
    for (int s = 0; s < 40; ++s) {
      solver.step();
      const auto sums = solver.last_update();
      EXPECT_NEAR(sums.total - sums.clipped, 1.0, 1e-12) << "step " << s;
      EXPECT_LT(std::fabs(sums.outflow), 1e-13);
      EXPECT_LT(sums.clipped, 1e-7);
    }
  }
  // Both rules for open backward faces balance; the paper's (no flux there) loses less.
  double outflow[2] = {0, 0};
  for (const bool back_face_outflow : {true, false}) {
    Parameters p = lorenz63_paper();
    p.prune_interval = 1000;
    p.back_face_outflow = back_face_outflow;
    Solver<Space, Lorenz63> solver(space, Lorenz63{}, p);
    for (int s = 0; s < 60; ++s) {
      solver.step();
      const auto sums = solver.last_update();
      EXPECT_NEAR(sums.total + sums.outflow - sums.clipped, 1.0, 1e-12) << "step " << s;
      outflow[back_face_outflow ? 0 : 1] += sums.outflow;
    }
  }
  EXPECT_GT(outflow[1], 0.0);         // the open forward faces of cells below p* carry some away
  EXPECT_GT(outflow[0], outflow[1]);  // and the open backward faces more
}

// An ensemble under a uniform drift: the PDFs start whole numbers of cells apart and share
// the CFL step, so each must be the one-PDF run moved by its offset, pruned and normalised
// on its own (to the rounding of its sums).
TYPED_TEST(GbeesSolver, EnsembleMembersEachMatchTheirOwnRun) {
  using Space = TypeParam;
  Space space;
  const double h = 0.2;
  Parameters single = gaussian_2d(h, 1e-7);
  single.epsilon = 0.8;
  single.prune_interval = 5;
  Parameters ensemble = single;
  const int offsets[3][2] = {{0, 0}, {25, -10}, {-30, 40}};
  for (const auto& o : offsets)
    ensemble.member_means.push_back({single.initial_mean[0] + o[0] * h, single.initial_mean[1] + o[1] * h});
  Solver<Space, ConstantDrift> one(space, drift_2d(1.0, -0.6), single), many(space, drift_2d(1.0, -0.6), ensemble);
  ASSERT_TRUE(one.advance_to(1.0));
  ASSERT_TRUE(many.advance_to(1.0));
  ASSERT_EQ(many.members(), 3);
  EXPECT_EQ(many.statistics().steps, one.statistics().steps);
  const HostCells reference = one.cells(), all = many.cells();
  std::map<std::pair<std::int64_t, std::int64_t>, double> by_index;
  for (std::size_t c = 0; c < reference.size(); ++c)
    by_index[{reference.index[2 * c], reference.index[2 * c + 1]}] = reference.probability[c];
  for (int e = 0; e < 3; ++e) {
    const HostCells member = member_cells(all, e);
    EXPECT_EQ(member.size(), reference.size()) << "member " << e;
    double largest_error = 0, total = 0;
    for (std::size_t c = 0; c < member.size(); ++c) {
      const auto it = by_index.find({member.index[2 * c] - offsets[e][0], member.index[2 * c + 1] - offsets[e][1]});
      ASSERT_NE(it, by_index.end()) << "member " << e << ": a cell the one-PDF run does not have";
      largest_error = std::max(largest_error, std::fabs(member.probability[c] - it->second));
      total += member.probability[c];
    }
    EXPECT_LT(largest_error, 1e-13) << "member " << e;
    EXPECT_NEAR(total, 1.0, 1e-13) << "member " << e;
  }
}

// Every enabled space against the host space on a short Lorenz '63 run, of one PDF and of
// an ensemble of three.
TYPED_TEST(GbeesSolver, AgreesWithTheHostSpaceOnAShortLorenz63Run) {
  using Space = TypeParam;
  if (pk::test::is_host_space<Space>) GTEST_SKIP() << pk::test::host_against_itself;
  Parameters p = lorenz63_paper();
  p.end_time = 0.15;
  p.measurements.clear();
  p.prune_interval = 10;
  pk::test::expect_same_run_as_host<Space>(Lorenz63{}, p);
  p.member_means = {p.initial_mean, {-6, -8, 14}, {-14, -12, 6}};
  pk::test::expect_same_run_as_host<Space>(Lorenz63{}, p);
}

TEST(GbeesHostCells, AboveThresholdKeepsTheReportedCellsRenormalised) {
  HostCells cells;
  cells.n = 2;
  cells.cell_width = {0.5, 0.5};
  cells.origin = {0.0, 0.0};
  cells.key = {11, 12, 13, 14};
  cells.index = {0, 0, 1, 0, 0, 1, 1, 1};
  cells.probability = {0.5, 1e-6, 0.3, 0.2 - 1e-6};
  const HostCells kept = above_threshold(cells, 5e-6);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept.key, (std::vector<std::uint64_t>{11, 13, 14}));
  EXPECT_EQ(kept.index, (std::vector<std::int64_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_DOUBLE_EQ(kept.probability[0], 0.5 / (1 - 1e-6));
  EXPECT_DOUBLE_EQ(kept.probability[0] + kept.probability[1] + kept.probability[2], 1.0);
  EXPECT_THROW(above_threshold(cells, 0.9), pk::Error);
  // BC over the kept cells from q on every cell equals BC of the kept, renormalised pair.
  const std::vector<double> q = {0.1, 0.4, 0.2, 0.3}, q_kept = {0.1 / 0.6, 0.2 / 0.6, 0.3 / 0.6};
  EXPECT_NEAR(bhattacharyya_above_threshold(cells, q, 5e-6), bhattacharyya(kept.probability, q_kept), 1e-15);
}

// Marginals sum the cells of each bin in the order of the bins' indices, a bin kept even
// where its cells sum to 0; the same whether the cells are close (a dense array of bins) or
// spread over more indices than such an array would hold (a map); several at once as each alone.
TEST(GbeesHostCells, MarginalsSumEachBinInIndexOrder) {
  for (const std::int64_t far : {std::int64_t(3), std::int64_t(1) << 40}) {
    HostCells cells;
    cells.n = 3;
    cells.cell_width = {0.5, 0.25, 2.0};
    cells.origin = {0.0, 0.0, 0.0};
    cells.index = {far, 0, 7, -1, 2, 0, far, 0, 8, -1, 0, 0, -1, 2, 5};
    cells.probability = {0.25, 0.125, 0.5, 0.0, 0.125};
    cells.key.assign(cells.probability.size(), 0);
    const Marginal x1 = marginal(cells, {0});
    EXPECT_EQ(x1.coordinate, (std::vector<double>{-0.5, 0.5 * static_cast<double>(far)}));
    EXPECT_EQ(x1.density, (std::vector<double>{0.25 / 0.5, 0.75 / 0.5}));
    const Marginal x1x2 = marginal(cells, {0, 1});
    EXPECT_EQ(x1x2.coordinate, (std::vector<double>{-0.5, 0.0, -0.5, 0.5, 0.5 * static_cast<double>(far), 0.0}));
    EXPECT_EQ(x1x2.density, (std::vector<double>{0.0, 0.25 / 0.125, 0.75 / 0.125}));
    const Marginal x3x2 = marginal(cells, {2, 1});
    EXPECT_EQ(x3x2.density, (std::vector<double>{0.0, 0.125 / 0.5, 0.125 / 0.5, 0.25 / 0.5, 0.5 / 0.5}));
    const std::vector<Marginal> together = marginals(cells, {{0}, {0, 1}, {2, 1}});
    ASSERT_EQ(together.size(), 3u);
    for (const auto& [one, alone] : {std::pair{together[0], x1}, {together[1], x1x2}, {together[2], x3x2}}) {
      EXPECT_EQ(one.axes, alone.axes);
      EXPECT_EQ(one.coordinate, alone.coordinate);
      EXPECT_EQ(one.density, alone.density);
    }
  }
}

// Samples binned on the grid's cells along each axis: a sample at a cell centre's
// coordinate and one half a width off it fall in the same bin (rounded to the nearest
// centre); one beyond every cell falls in a bin the grid lacks and costs BC its share.
TEST(GbeesHostCells, MarginalBhattacharyyaBinsSamplesOnTheCells) {
  HostCells cells;
  cells.n = 2;
  cells.cell_width = {0.5, 2.0};
  cells.origin = {1.0, 0.0};
  cells.index = {0, 3, 1, 3, 1, 4};  // centres (1, 6), (1.5, 6), (1.5, 8)
  cells.probability = {0.5, 0.25, 0.25};
  cells.key.assign(3, 0);
  // x1 bins: 0 holds 0.5, 1 holds 0.5; x2 bins: 3 holds 0.75, 4 holds 0.25.
  const std::vector<double> samples = {1.2, 6.9, 1.6, 7.2, 9.0, 8.5}, weights = {1, 2, 1};
  const std::vector<double> bc = marginal_bhattacharyya(cells, samples, weights);
  ASSERT_EQ(bc.size(), 2u);
  // x1: samples in bins 0 (1/4), 1 (2/4) and 16 (1/4); x2: bins 3 (1/4), 4 (3/4).
  EXPECT_NEAR(bc[0], std::sqrt(0.5 * 0.25) + std::sqrt(0.5 * 0.5), 1e-15);
  EXPECT_NEAR(bc[1], std::sqrt(0.75 * 0.25) + std::sqrt(0.25 * 0.75), 1e-15);
  EXPECT_NEAR(marginal_bhattacharyya(cells, {1.0, 6.0, 1.0, 6.0, 1.5, 6.0, 1.5, 8.0}, {1, 1, 1, 1})[0], 1.0, 1e-15);
  EXPECT_THROW(marginal_bhattacharyya(cells, {1.0}, {1, 1}), pk::Error);
}

TEST(GbeesParameters, RejectOutOfRangeValues) {
  Parameters p = lorenz63_paper();
  EXPECT_NO_THROW(validate(p, 3));
  EXPECT_THROW(validate(p, 1), pk::Error);
  EXPECT_THROW(validate(p, 9), pk::Error);
  auto bad = [&](auto change) {
    Parameters q = lorenz63_paper();
    change(q);
    EXPECT_THROW(validate(q, 3), pk::Error);
  };
  bad([](Parameters& q) { q.cell_width[1] = -0.5; });
  bad([](Parameters& q) { q.initial_std[0] = 0; });
  bad([](Parameters& q) {  // a box wider than any cell index
    q.initial_std[0] = 1e300;
    q.cell_width[0] = 1e-300;
  });
  bad([](Parameters& q) { q.threshold = 1; });
  bad([](Parameters& q) { q.threshold = 0; });
  bad([](Parameters& q) { q.epsilon = 0; });
  bad([](Parameters& q) { q.end_time = 0.5; });  // before the measurement at t = 1
  bad([](Parameters& q) { q.initial_mean.pop_back(); });
  EXPECT_THROW(read_measurements("/nonexistent/measurements.txt", 3), pk::Error);
}

// Boxes too large to count cell by cell: with every cell above p* the count is the box's;
// with a ball of 2 std well inside the box, the ball's volume in cells, which a lattice
// count approaches within about a cell per radius (here 20,000 cells).
TEST(GbeesParameters, InitialCellCountOfBoxesBeyondCounting) {
  Parameters p = lorenz63_paper();
  p.initial_above_threshold = true;
  p.initial_std = {100, 100, 100};
  p.cell_width = {1e-3, 1e-3, 1e-3};
  p.threshold = 1e-300;
  EXPECT_EQ(initial_cell_count(p), std::pow(2 * 300000.0 + 1, 3));
  p.initial_std = {1, 1, 1};
  p.cell_width = {1e-4, 1e-4, 1e-4};
  p.initial_extent = 10;
  const double sum = std::pow(std::sqrt(2 * std::acos(-1.0)) * 1e4, 3);  // the Gaussian over the box
  p.threshold = std::exp(-2.0) / sum;                                    // |z| <= 2 std
  const double ball = 4.0 / 3 * std::acos(-1.0) * std::pow(2e4, 3);
  EXPECT_NEAR(initial_cell_count(p), ball, 1e-3 * ball);
}

}  // namespace
