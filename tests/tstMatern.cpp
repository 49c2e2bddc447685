// Matern covariance, Morton order, tiled Cholesky and log-likelihood on every space, and
// (Validation) the maximum-likelihood fit recovering a known field.
#include "spaces.hpp"

#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/matern.hpp>
#include <pk/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

namespace {

namespace bk = pk::besselk;

template <class Space>
class Matern : public ::testing::Test {};
TYPED_TEST_SUITE(Matern, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);
template <class Space>
class MaternValidation : public ::testing::Test {};
TYPED_TEST_SUITE(MaternValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

template <class View>
auto on_host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
}

TYPED_TEST(Matern, HalfIntegerOrdersMatchTheirClosedForms) {
  const auto locations = bk::synthetic_locations(60, 3);
  const auto s = bk::to_space(TypeParam{}, locations);
  const long n = 60;
  for (const double nu : {0.5, 1.5, 2.5}) {
    const bk::MaternParameters p{1.7, 0.08, nu};
    bk::Matrix<TypeParam> c("pk::test::covariance", n, n);
    bk::generate_covariance(TypeParam{}, s, p, c);
    const auto h = on_host(c);
    for (long j = 0; j < n; ++j)
      for (long i = j; i < n; ++i) {
        const double x = std::hypot(locations.x[i] - locations.x[j], locations.y[i] - locations.y[j]) / p.range;
        const double poly = nu == 0.5 ? 1 : (nu == 1.5 ? 1 + x : 1 + x + x * x / 3);
        const double want = p.variance * poly * std::exp(-x);
        ASSERT_NEAR(h(i, j), want, 1e-14 * p.variance) << "nu " << nu << " i " << i << " j " << j;
      }
  }
}

TYPED_TEST(Matern, ZeroDistanceIsTheLimit) {
  // C(r) -> sigma^2 as r -> 0 for any nu; C(0) is set to sigma^2 exactly.
  const bk::MaternKernel kernel({2.0, 0.3, 0.83});
  EXPECT_EQ(kernel(0.0), 2.0);
  EXPECT_NEAR(kernel(1e-9), 2.0, 1e-6);
  EXPECT_LT(kernel(1e-3), kernel(1e-9));
}

TEST(MaternLocations, MortonOrderAndChecks) {
  const auto l = bk::synthetic_locations(500, 9);
  ASSERT_EQ(l.size(), 500u);
  // Keys over the points' bounding box scaled into the unit square, as morton_ordered does.
  const auto xs = std::minmax_element(l.x.begin(), l.x.end());
  const auto ys = std::minmax_element(l.y.begin(), l.y.end());
  const double x_lo = *xs.first, y_lo = *ys.first, extent = std::max(*xs.second - x_lo, *ys.second - y_lo);
  const auto key = [&](std::size_t i) { return bk::morton_key((l.x[i] - x_lo) / extent, (l.y[i] - y_lo) / extent); };
  for (std::size_t i = 1; i < l.size(); ++i) EXPECT_LE(key(i - 1), key(i));
  // Morton order keeps neighbours close: the mean step is a few grid spacings, not ~0.5.
  double steps = 0;
  for (std::size_t i = 1; i < l.size(); ++i) steps += std::hypot(l.x[i] - l.x[i - 1], l.y[i] - l.y[i - 1]);
  EXPECT_LT(steps / 499, 3.0 / std::sqrt(500.0));
  EXPECT_THROW(bk::synthetic_locations(1, 0), pk::Error);
  bk::Locations dup{{0.1, 0.5, 0.1}, {0.2, 0.5, 0.2}};
  EXPECT_THROW(bk::morton_ordered(dup), pk::Error);
  EXPECT_THROW(bk::check_parameters({1.0, 0.1, -0.5}), pk::Error);
  EXPECT_THROW(bk::check_parameters({1.0, 0.0, 0.5}), pk::Error);
  EXPECT_THROW(bk::check_parameters({0.0, 0.1, 0.5}), pk::Error);
}

// A dense host Cholesky, the independent reference for the tiled one.
std::vector<double> host_cholesky(std::vector<double> a, long n) {
  for (long j = 0; j < n; ++j) {
    for (long k = 0; k < j; ++k) a[j + n * j] -= a[j + n * k] * a[j + n * k];
    a[j + n * j] = std::sqrt(a[j + n * j]);
    for (long i = j + 1; i < n; ++i) {
      for (long k = 0; k < j; ++k) a[i + n * j] -= a[i + n * k] * a[j + n * k];
      a[i + n * j] /= a[j + n * j];
    }
  }
  return a;
}

TYPED_TEST(Matern, TiledCholeskyAndLogLikelihoodMatchADenseHostReference) {
  const long n = 300;  // 2 tiles of 128 (each factored as 2 x 64) and a partial one
  const auto locations = bk::synthetic_locations(n, 5);
  const auto s = bk::to_space(TypeParam{}, locations);
  const bk::MaternParameters p{1.3, 0.1, 1.2};
  bk::Matrix<TypeParam> c("pk::test::covariance", n, n);
  bk::generate_covariance(TypeParam{}, s, p, c);
  const auto hc = on_host(c);
  std::vector<double> dense(n * n);
  for (long j = 0; j < n; ++j)
    for (long i = j; i < n; ++i) dense[i + n * j] = hc(i, j);
  const auto l = host_cholesky(dense, n);
  bk::cholesky_in_place(TypeParam{}, c, 128);
  const auto got = on_host(c);
  for (long j = 0; j < n; ++j)
    for (long i = j; i < n; ++i) ASSERT_NEAR(got(i, j), l[i + n * j], 1e-10) << i << ", " << j;

  // log-likelihood of z against -n/2 log 2 pi - sum log L_ii - |L^-1 z|^2 / 2 on the host.
  const auto z_host = pk::test::random_host_vector(n);
  const auto z = pk::test::to_space(TypeParam{}, z_host);
  bk::Matrix<TypeParam> work("pk::test::work", n, n);
  const double got_ll = bk::log_likelihood(TypeParam{}, s, z, p, work, nullptr, 128);
  std::vector<double> w(n);
  double quad = 0, log_det = 0;
  for (long i = 0; i < n; ++i) {
    double v = z_host(i);
    for (long k = 0; k < i; ++k) v -= l[i + n * k] * w[k];
    w[i] = v / l[i + n * i];
    quad += w[i] * w[i];
    log_det += 2 * std::log(l[i + n * i]);
  }
  const double want_ll = -0.5 * (n * std::log(2 * M_PI) + log_det + quad);
  EXPECT_NEAR(got_ll, want_ll, 1e-9 * std::abs(want_ll));
}

TYPED_TEST(Matern, NotPositiveDefiniteIsAnError) {
  const long n = 100;
  bk::Matrix<TypeParam> a("pk::test::indefinite", n, n);
  auto h = Kokkos::create_mirror_view(a);
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) h(i, j) = (i == j) ? (i == 70 ? -1.0 : 2.0) : 0.01;
  Kokkos::deep_copy(a, h);
  try {
    bk::cholesky_in_place(TypeParam{}, a, 32);
    FAIL() << "an indefinite matrix was factored";
  } catch (const pk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite: pivot 70 of 100"), std::string::npos) << e.what();
  }
  // Duplicate locations (bypassing morton_ordered's check) make C singular: error too.
  bk::Locations twice{{0.2, 0.2, 0.7}, {0.3, 0.3, 0.1}};
  const auto s = bk::to_space(TypeParam{}, twice);
  const auto z = pk::test::to_space(TypeParam{}, pk::test::random_host_vector(3));
  bk::Matrix<TypeParam> work("pk::test::work", 3, 3);
  EXPECT_THROW(bk::log_likelihood(TypeParam{}, s, z, {1.0, 0.1, 0.5}, work), pk::Error);
}

TYPED_TEST(MaternValidation, MaximumLikelihoodRecoversAMediumCorrelationField) {
  // n = 1600 (ExaGeoStat's synthetic set-up: jittered grid in the unit square); truth
  // (sigma^2, beta, nu) = (1, 0.1, 0.5), medium correlation. sigma^2 is profiled out so
  // that the CI run stays near half a minute (the same maximum as the 3-parameter fit).
  // One realisation scatters around the truth, beta and nu along a ridge (the paper shows
  // boxplots over many; their numbers were lost): we state sigma^2 and beta within 50 %,
  // nu within 20 %, and check that the optimiser found a maximum, not just a good point.
  const bk::MaternParameters truth{1.0, 0.1, 0.5};
  const auto s = bk::to_space(TypeParam{}, bk::synthetic_locations(1600, 2026));
  const auto z = bk::synthetic_observations(TypeParam{}, s, truth, 17);
  bk::OptimizerSettings settings;
  settings.relative_tolerance = 1e-4;
  const bk::Fit fit = bk::fit_matern(TypeParam{}, s, z, {0.5, 0.05, 1.0}, settings, true);
  std::cout << "MLE n = 1600, truth (1, 0.1, 0.5): estimate (" << fit.estimate.variance << ", " << fit.estimate.range
            << ", " << fit.estimate.smoothness << "), " << fit.evaluations << " evaluations, " << fit.seconds << " s\n";
  EXPECT_TRUE(fit.converged);
  EXPECT_NEAR(fit.estimate.variance, truth.variance, 0.5 * truth.variance);
  EXPECT_NEAR(fit.estimate.range, truth.range, 0.5 * truth.range);
  EXPECT_NEAR(fit.estimate.smoothness, truth.smoothness, 0.2 * truth.smoothness);
  bk::Matrix<TypeParam> work("pk::test::work", 1600, 1600);
  const auto ll = [&](bk::MaternParameters p) { return bk::log_likelihood(TypeParam{}, s, z, p, work); };
  EXPECT_NEAR(ll(fit.estimate), fit.log_likelihood, 1e-8 * std::abs(fit.log_likelihood));
  EXPECT_GE(fit.log_likelihood, ll(truth));
  // A 2 % step in any parameter lowers the likelihood.
  for (int k = 0; k < 3; ++k)
    for (const double f : {0.98, 1.02}) {
      auto p = fit.estimate;
      (k == 0 ? p.variance : (k == 1 ? p.range : p.smoothness)) *= f;
      EXPECT_LT(ll(p), fit.log_likelihood) << "parameter " << k << " times " << f;
    }
}

}  // namespace
