// 3D-Var with the recursive-filter covariance: observation operator, symmetry of the
// system, and a synthetic analysis that beats its background.
#include "rfilter_cases.hpp"
#include "spaces.hpp"

#include <pk/core/error.hpp>
#include <pk/rfilter/synthetic.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <cmath>
#include <cstdio>

namespace {

namespace rf = pk::rfilter;

template <class Space>
class Rfilter3dVar : public ::testing::Test {};
TYPED_TEST_SUITE(Rfilter3dVar, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

rf::SyntheticSettings small_case() { return pk::test::small_3dvar_case(32); }

TYPED_TEST(Rfilter3dVar, InterpolationIsExactForLinearFields) {
  const rf::Grid grid{5, 4, 3};
  rf::ObservationSet obs;
  obs.x = {0.0, 4.0, 2.5, 1.25};
  obs.y = {0.0, 3.0, 0.5, 2.75};
  obs.z = {0.0, 2.0, 1.5, 0.1};
  obs.value.assign(4, 0.0);
  obs.error_std.assign(4, 1.0);
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename TypeParam::memory_space>;
  Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> host("pk::test::linear", grid.size());
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 5; ++i) host(i + 5 * (j + 4 * k)) = 1 + 2 * i - 3 * j + 0.5 * k;
  const Vector field = pk::test::to_space(TypeParam{}, host);
  const auto located = rf::to_space(TypeParam{}, obs, grid);
  Vector values("pk::test::values", 4);
  rf::interpolate(TypeParam{}, grid, located, field, values);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, values);
  for (int o = 0; o < 4; ++o) EXPECT_NEAR(got(o), 1 + 2 * obs.x[o] - 3 * obs.y[o] + 0.5 * obs.z[o], 1e-13);
}

TYPED_TEST(Rfilter3dVar, ObservationsAreChecked) {
  const rf::Grid grid{8, 8, 1};
  rf::ObservationSet obs;
  obs.x = {1.0};
  obs.y = {7.5};  // beyond ny - 1
  obs.z = {0.0};
  obs.value = {1.0};
  obs.error_std = {0.1};
  EXPECT_THROW(rf::check_observations(obs, grid), pk::Error);
  obs.y = {7.0};
  EXPECT_NO_THROW(rf::check_observations(obs, grid));
  obs.z = {0.5};  // a 2-D grid has z = 0 only
  EXPECT_THROW(rf::check_observations(obs, grid), pk::Error);
  obs.z = {0.0};
  obs.value = {1.0, 2.0};  // mismatched sizes
  EXPECT_THROW(rf::check_observations(obs, grid), pk::Error);
}

TYPED_TEST(Rfilter3dVar, SystemOperatorIsSymmetric) {
  const auto s = small_case();
  const auto problem = rf::make_synthetic_case(TypeParam{}, s);
  const rf::ThreeDVar<TypeParam> var(TypeParam{}, s.grid, s.covariance,
                                     rf::to_space(TypeParam{}, problem.observations, s.grid));
  using Vector = typename rf::ThreeDVar<TypeParam>::Vector;
  const Vector x = pk::test::to_space(TypeParam{}, pk::test::random_host_vector(s.grid.size()));
  const Vector y = pk::test::to_space(TypeParam{}, pk::test::random_host_vector(s.grid.size()));
  Vector ax("pk::test::ax", s.grid.size()), ay("pk::test::ay", s.grid.size());
  var.apply_system(x, ax);
  var.apply_system(y, ay);
  const double yax = pk::blas::dot(TypeParam{}, y, ax), xay = pk::blas::dot(TypeParam{}, x, ay);
  EXPECT_NEAR(yax, xay, 1e-10 * std::abs(yax));
  EXPECT_GT(pk::blas::dot(TypeParam{}, x, ax), pk::blas::dot(TypeParam{}, x, x));  // I + (positive semidefinite)
}

TYPED_TEST(Rfilter3dVar, SyntheticAnalysisBeatsBackground) {
  const auto s = small_case();
  const auto problem = rf::make_synthetic_case(TypeParam{}, s);
  const rf::ThreeDVar<TypeParam> var(TypeParam{}, s.grid, s.covariance,
                                     rf::to_space(TypeParam{}, problem.observations, s.grid));
  typename rf::ThreeDVar<TypeParam>::Vector analysis("pk::test::analysis", s.grid.size());
  const double tolerance = 1e-7;
  const auto result = var.analyse(problem.background, analysis, tolerance, 400);
  const double background = rf::rms_difference(TypeParam{}, problem.background, problem.truth);
  const double analysed = rf::rms_difference(TypeParam{}, analysis, problem.truth);
  std::printf("3D-Var %dx%dx%d, %ld obs: CG %d iterations, residual %.2e (recomputed %.2e), rmse %.4f -> %.4f\n",
              s.grid.nx, s.grid.ny, s.grid.nz, s.observations, result.cg.iterations, result.cg.relative_residual,
              result.cg.true_relative_residual, background, analysed);
  EXPECT_TRUE(result.cg.converged);
  EXPECT_LE(result.cg.relative_residual, tolerance);
  EXPECT_LT(result.cg.true_relative_residual, 10 * tolerance);
  EXPECT_GT(result.cg.iterations, 1);
  EXPECT_LT(analysed, 0.5 * background);
  EXPECT_GT(background, 0.2);  // the background error really is there (std 0.5)
}

}  // namespace
