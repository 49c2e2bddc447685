// The Matern likelihood (covariance, tiled Cholesky through Kokkos Kernels, solve) runs all
// its work on the execution space instance it is given, as Kokkos Tools sees it
// (tstKokkosToolsInstances.cpp has the other codes).
#include "instance_recorder.hpp"
#include "spaces.hpp"

#include <pk/besselk/likelihood.hpp>

namespace {

namespace bk = pk::besselk;

template <class Space>
class KokkosToolsInstancesBesselk : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosToolsInstancesBesselk, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(KokkosToolsInstancesBesselk, MaternLikelihood) {
  const TypeParam space = pk::test::partitioned_instance<TypeParam>();
  const bk::Locations host = bk::synthetic_locations(300, 7);
  pk::test::InstanceRecorder recorder;
  const auto locations = bk::to_space(space, host);
  const bk::MaternParameters truth{1.0, 0.1, 1.5};
  const auto z = bk::synthetic_observations(space, locations, truth, 5, 128);
  bk::Matrix<TypeParam> work(Kokkos::view_alloc(space, "pk::test::work"), 300, 300);
  const double value = bk::log_likelihood(space, locations, z, truth, work, nullptr, 128);
  EXPECT_TRUE(std::isfinite(value));
  recorder.expect_all_on(space);
}

}  // namespace
