// Accuracy of the K-iterated recursive filter against the exact discrete Gaussian
// convolution (eq. 5), on random Gaussian and uniform inputs as in the paper (sigma = 2).
#include "spaces.hpp"

#include <pk/rfilter/filter.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

namespace rf = pk::rfilter;

// (g * s)_j = sum_t g(j - t) s_t, s zero outside [0, n), g the unit-mass Gaussian.
std::vector<double> exact_gaussian_convolution(const std::vector<double>& s, double sigma) {
  const int n = static_cast<int>(s.size()), reach = static_cast<int>(std::ceil(12 * sigma));
  std::vector<double> g(reach + 1), out(n, 0.0);
  for (int t = 0; t <= reach; ++t)
    g[t] = std::exp(-0.5 * t * t / (sigma * sigma)) / (std::sqrt(2 * 3.14159265358979323846) * sigma);
  for (int j = 0; j < n; ++j)
    for (int t = std::max(0, j - reach); t <= std::min(n - 1, j + reach); ++t) out[j] += g[std::abs(j - t)] * s[t];
  return out;
}

// Relative 2-norm error away from the ends (the edge effect is the end conditions' business).
template <class Space>
double filter_error(const std::vector<double>& input, double sigma, int K) {
  const int n = static_cast<int>(input.size());
  Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> host("pk::test::signal", n);
  for (int j = 0; j < n; ++j) host(j) = input[j];
  auto field = pk::test::to_space(Space{}, host);
  rf::apply_filter(Space{}, field, 0, rf::make_coefficients(sigma, K));
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
  const auto exact = exact_gaussian_convolution(input, sigma);
  const int margin = static_cast<int>(10 * sigma);
  double diff = 0, norm = 0;
  for (int j = margin; j < n - margin; ++j) {
    diff += (got(j) - exact[j]) * (got(j) - exact[j]);
    norm += exact[j] * exact[j];
  }
  return std::sqrt(diff / norm);
}

template <class Space>
class RfilterValidation : public ::testing::Test {};
TYPED_TEST_SUITE(RfilterValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(RfilterValidation, ErrorAgainstExactGaussianFallsWithK) {
  const int n = 4000;
  const double sigma = 2.0;
  std::mt19937_64 engine(2019);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (const char* kind : {"gaussian", "uniform"}) {
    std::vector<double> input(n);
    for (auto& v : input) v = kind[0] == 'g' ? normal(engine) : uniform(engine);
    std::vector<double> errors;
    for (int K : {1, 2, 4, 10, 50, 100, 500}) {
      errors.push_back(filter_error<TypeParam>(input, sigma, K));
      std::printf("rfilter accuracy %s input, sigma %.1f, K %4d: relative error %.3e\n", kind, sigma, K, errors.back());
    }
    for (std::size_t i = 1; i < errors.size(); ++i) EXPECT_LT(errors[i], errors[i - 1]) << kind << " step " << i;
    EXPECT_LT(errors.back(), 0.1 * errors.front()) << kind;
  }
}

}  // namespace
