// The Matern likelihood with the covariance block-cyclic over the ranks (ScaLAPACK): the
// same field, log-likelihood and fit as one space's tiled Cholesky, to round-off, on every
// rank alike; and a matrix that is not positive definite is seen by every rank.
#include "../spaces.hpp"

#include <pk/besselk/distributed.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/locations.hpp>

#include <mpi.h>

#include <cmath>
#include <vector>

namespace {

namespace bk = pk::besselk;

template <class Space>
class MaternDistributed : public ::testing::Test {};
TYPED_TEST_SUITE(MaternDistributed, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// Small blocks, so that every rank of a 2 x 2 grid holds several, and n not a multiple of them.
constexpr long n = 300;
constexpr int block = 32;
const bk::MaternParameters truth{1.3, 0.08, 0.9};

// Whether every rank holds the same bits as rank 0.
bool same_on_every_rank(const pk::mpi::Communicator& world, const std::vector<double>& values) {
  std::vector<double> first = values;
  MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_DOUBLE, 0, world.get());
  const unsigned differs = first == values ? 0u : 1u;
  return world.bit_or(differs) == 0;
}

template <class Space>
std::vector<double> on_host(const bk::Vector<Space>& v) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
  return std::vector<double>(host.data(), host.data() + host.size());
}

TYPED_TEST(MaternDistributed, FieldAndLikelihoodMatchOneSpace) {
  using Space = TypeParam;
  const Space space;
  const pk::mpi::Communicator world;
  const auto s = bk::to_space(space, bk::synthetic_locations(n, 7));
  const bk::BlockCyclic layout(world, n, block);
  EXPECT_EQ(layout.grid_rows() * layout.grid_cols(), world.size());
  bk::LocalTiles<Space> work(space, layout);

  const std::vector<double> z = bk::distributed_synthetic_observations(space, layout, s, truth, 11, work);
  const std::vector<double> reference = on_host<Space>(bk::synthetic_observations(space, s, truth, 11, block));
  ASSERT_EQ(z.size(), reference.size());
  double field_error = 0, field_scale = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    field_error = std::max(field_error, std::abs(z[i] - reference[i]));
    field_scale = std::max(field_scale, std::abs(reference[i]));
  }
  EXPECT_LT(world.max(field_error), 1e-12 * field_scale);
  EXPECT_TRUE(same_on_every_rank(world, z));

  bk::Vector<Space> z_space("pk::test::z", n);
  Kokkos::deep_copy(z_space, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(z.data(), n));
  bk::Matrix<Space> single_work("pk::test::work", n, n);
  for (const bk::MaternParameters& p : {truth, bk::MaternParameters{0.7, 0.2, 2.5}}) {
    const auto parts = bk::distributed_log_likelihood_parts(space, layout, s, z, p, work);
    ASSERT_TRUE(parts.has_value());
    const auto single = bk::log_likelihood_parts(space, s, z_space, p, single_work, nullptr, block);
    EXPECT_NEAR(parts->log_det, single.log_det, 1e-10 * std::abs(single.log_det));
    EXPECT_NEAR(parts->quadratic, single.quadratic, 1e-10 * single.quadratic);
    EXPECT_TRUE(same_on_every_rank(world, {parts->log_det, parts->quadratic}));
  }
}

TYPED_TEST(MaternDistributed, FitMatchesOneSpace) {
  using Space = TypeParam;
  const Space space;
  const pk::mpi::Communicator world;
  const auto s = bk::to_space(space, bk::synthetic_locations(n, 3));
  const bk::BlockCyclic layout(world, n, block);
  const bk::Vector<Space> z_space = bk::synthetic_observations(space, s, truth, 5, block);
  const std::vector<double> z = on_host<Space>(z_space);
  bk::OptimizerSettings settings;
  settings.relative_tolerance = 1e-6;
  const bk::MaternParameters start{0.5, 0.05, 1.0};
  const bk::Fit fit = bk::fit_matern_distributed(space, layout, s, z, start, settings, world, true);
  const bk::Fit single = bk::fit_matern(space, s, z_space, start, settings, true);
  EXPECT_TRUE(fit.converged);
  EXPECT_FALSE(fit.interrupted);
  // BOBYQA's path may part from one space's by round-off: the same maximum to its tolerance.
  EXPECT_NEAR(fit.log_likelihood, single.log_likelihood, 1e-6 * std::abs(single.log_likelihood));
  EXPECT_NEAR(fit.estimate.range, single.estimate.range, 1e-3 * single.estimate.range);
  EXPECT_NEAR(fit.estimate.smoothness, single.estimate.smoothness, 1e-3 * single.estimate.smoothness);
  EXPECT_NEAR(fit.estimate.variance, single.estimate.variance, 1e-3 * single.estimate.variance);
  EXPECT_TRUE(same_on_every_rank(world, {fit.estimate.variance, fit.estimate.range, fit.estimate.smoothness,
                                         fit.log_likelihood, double(fit.evaluations)}));
}

TYPED_TEST(MaternDistributed, AnIndefiniteMatrixIsSeenByEveryRank) {
  using Space = TypeParam;
  const Space space;
  const pk::mpi::Communicator world;
  const bk::BlockCyclic layout(world, n, block);
  bk::LocalTiles<Space> work(space, layout);
  // 2 on the diagonal but -1 at row 170 (held by one rank), 0.01 elsewhere.
  for (long lj = 0; lj < layout.cols().size; ++lj)
    for (long li = 0; li < layout.rows().size; ++li) {
      const long i = layout.rows().global(li), j = layout.cols().global(lj);
      work.host(li, lj) = i == j ? (i == 170 ? -1.0 : 2.0) : 0.01;
    }
  const bool positive_definite = layout.factor(work.host.data());
  EXPECT_FALSE(positive_definite);
  EXPECT_EQ(world.bit_or(positive_definite ? 1u : 2u), 2u);  // no rank found it positive definite
}

}  // namespace
