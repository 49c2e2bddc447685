// The Matern likelihood with the covariance over several GPUs (cuSOLVERMg) against the same
// computed on one GPU (the tiled Cholesky): the same parts, field and fit to round-off, on
// grids of 1 to 3 GPUs (GPU numbers repeat where fewer are visible, so that a one-GPU machine
// still deals blocks round-robin).
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/multi_gpu.hpp>
#include <pk/core/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

namespace bk = pk::besselk;

std::vector<int> grid_of(int gpus) {
  int visible = 0;
  cudaGetDeviceCount(&visible);
  std::vector<int> devices;
  for (int g = 0; g < gpus; ++g) devices.push_back(g % std::max(1, visible));
  return devices;
}

std::vector<double> to_host(const bk::Vector<Kokkos::Cuda>& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST(MaternMultiGpu, FieldAndLikelihoodMatchOneGpu) {
  const long n = 1200;  // 19 column blocks of 64, the last one partial
  const auto locations = bk::synthetic_locations(n, 5);
  const bk::MaternParameters truth{1.3, 0.08, 0.9}, other{0.9, 0.12, 1.4};
  const Kokkos::Cuda one;
  const auto s = bk::to_space(one, locations);
  const auto z_one = bk::synthetic_observations(one, s, truth, 11, 64);
  const std::vector<double> z = to_host(z_one);
  bk::Matrix<Kokkos::Cuda> work("pk::test::work", n, n);
  const bk::LikelihoodParts want = bk::log_likelihood_parts(one, s, z_one, other, work);
  for (const int gpus : {1, 2, 3}) {
    bk::GpuInstances instances(grid_of(gpus));
    bk::MultiGpuCovariance covariance(instances.instances(), locations, 64);
    ASSERT_EQ(covariance.gpus(), gpus);
    const std::vector<double> field = covariance.synthetic_observations(truth, 11);
    EXPECT_LT(largest_difference(field, z), 1e-11) << gpus << " GPU(s)";
    const auto got = covariance.log_likelihood_parts(z, other);
    ASSERT_TRUE(got.has_value()) << gpus << " GPU(s)";
    EXPECT_NEAR(got->log_det, want.log_det, 1e-10 * std::abs(want.log_det)) << gpus << " GPU(s)";
    EXPECT_NEAR(got->quadratic, want.quadratic, 1e-10 * want.quadratic) << gpus << " GPU(s)";
  }
}

TEST(MaternMultiGpu, AnIndefiniteMatrixIsNoLikelihood) {
  auto locations = bk::synthetic_locations(300, 2);
  locations.x[7] = locations.x[6];  // a duplicate location: C is singular
  locations.y[7] = locations.y[6];
  bk::GpuInstances instances(grid_of(2));
  bk::MultiGpuCovariance covariance(instances.instances(), locations, 32);
  EXPECT_FALSE(covariance.log_likelihood_parts(std::vector<double>(300, 1.0), {1.0, 0.1, 0.5}).has_value());
  EXPECT_THROW(covariance.synthetic_observations({1.0, 0.1, 0.5}, 1), pk::Error);
}

TEST(MaternMultiGpu, FitMatchesOneGpu) {
  const long n = 400;
  const auto locations = bk::synthetic_locations(n, 8);
  const Kokkos::Cuda one;
  const auto s = bk::to_space(one, locations);
  const auto z_one = bk::synthetic_observations(one, s, {1.0, 0.1, 0.5}, 3);
  const bk::MaternParameters start{0.5, 0.05, 1.0};
  const bk::Fit want = bk::fit_matern(one, s, z_one, start, {}, true);
  bk::GpuInstances instances(grid_of(2));
  bk::MultiGpuCovariance covariance(instances.instances(), locations, 48);
  const bk::Fit got = bk::fit_matern_multi_gpu(covariance, to_host(z_one), start, {}, true);
  EXPECT_NEAR(got.log_likelihood, want.log_likelihood, 1e-8 * std::abs(want.log_likelihood));
  EXPECT_NEAR(got.estimate.range, want.estimate.range, 1e-4 * want.estimate.range);
  EXPECT_NEAR(got.estimate.smoothness, want.estimate.smoothness, 1e-4 * want.estimate.smoothness);
  EXPECT_NEAR(got.estimate.variance, want.estimate.variance, 1e-4 * want.estimate.variance);
}

TEST(MaternMultiGpu, TooManyLocationsAreRefusedSayingWhatFits) {
  const auto locations = bk::synthetic_locations(bk::max_locations, 1);
  bk::GpuInstances instances(grid_of(1));
  try {
    // 8 n^2 = 320 GB: more than any one GPU holds.
    bk::MultiGpuCovariance covariance(instances.instances(), locations, 512);
    FAIL() << "not refused";
  } catch (const pk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("locations fit"), std::string::npos) << e.what();
  }
}

}  // namespace
