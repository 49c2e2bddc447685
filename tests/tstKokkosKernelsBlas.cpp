// Kokkos Kernels, as the project builds it (vendor BLAS behind KokkosBlas), against a plain
// host reference on random data.
#include "spaces.hpp"

#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas3_gemm.hpp>

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
  const double got = KokkosBlas::dot(pk::test::to_space(TypeParam{}, x), pk::test::to_space(TypeParam{}, y));
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
  KokkosBlas::gemm("N", "N", alpha, pk::test::to_space(TypeParam{}, a), pk::test::to_space(TypeParam{}, b), beta, c);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, c);
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
