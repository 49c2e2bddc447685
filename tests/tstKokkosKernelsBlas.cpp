// Kokkos Kernels, as the project builds it (vendor BLAS behind KokkosBlas) and calls it (the
// pk::blas seam, on a second instance of the space), against a plain host reference on random data.
#include "spaces.hpp"

#include <pk/core/blas.hpp>
#include <pk/core/host_copies.hpp>

#include <cmath>

namespace {

template <class Space>
class KokkosKernelsBlasValidation : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosKernelsBlasValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(KokkosKernelsBlasValidation, DotMatchesHostSum) {
  const std::size_t n = 100003;
  const auto x = pk::test::random_host_vector(n), y = pk::test::random_host_vector(n);
  long double expected = 0;
  for (std::size_t i = 0; i < n; ++i) expected += static_cast<long double>(x(i)) * y(i);
  const auto space = pk::independent_instance(TypeParam());
  const double got = pk::blas::dot(space, pk::test::to_space(TypeParam{}, x), pk::test::to_space(TypeParam{}, y));
  EXPECT_NEAR(got, static_cast<double>(expected), 1e-12 * n);
}

TYPED_TEST(KokkosKernelsBlasValidation, GemmMatchesTripleLoop) {
  using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  const int m = 67, k = 45, n = 53;  // odd sizes: no tile divides them
  auto random_matrix = [](int rows, int cols) {
    const auto values = pk::test::random_host_vector(static_cast<std::size_t>(rows) * cols);
    Matrix matrix("pk::test::matrix", rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) matrix(i, j) = values(i + static_cast<std::size_t>(rows) * j);
    return matrix;
  };
  const Matrix a = random_matrix(m, k), b = random_matrix(k, n), c0 = random_matrix(m, n);
  const double alpha = 1.5, beta = -0.5;
  auto c = pk::test::to_space(TypeParam{}, c0);
  const auto space = pk::independent_instance(TypeParam());
  pk::blas::gemm(space, "N", "N", alpha, pk::test::to_space(TypeParam{}, a), pk::test::to_space(TypeParam{}, b), beta,
                 c);
  const auto got = pk::readable_on_host(space, c);
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double expected = beta * c0(i, j);
      for (int l = 0; l < k; ++l) expected += alpha * a(i, l) * b(l, j);
      worst = std::max(worst, std::abs(got(i, j) - expected));
    }
  EXPECT_LT(worst, 1e-13 * k);
}

}  // namespace
