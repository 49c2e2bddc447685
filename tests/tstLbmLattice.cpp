// D3Q19 lattice sanity: weights, opposites and the isotropy moments the Chapman-Enskog
// expansion needs (up to fourth order), on the host and inside kernels.
#include "spaces.hpp"

#include <pk/lbm/lattice.hpp>

#include <cmath>

namespace {

using pk::lbm::D3Q19;

TEST(LbmLattice, WeightsSumToOneAndVelocitiesAreDistinct) {
  double sum = 0;
  for (int q = 0; q < D3Q19::size; ++q) sum += D3Q19::weight(q);
  EXPECT_NEAR(sum, 1.0, 1e-15);
  for (int q = 0; q < D3Q19::size; ++q)
    for (int p = q + 1; p < D3Q19::size; ++p)
      EXPECT_FALSE(D3Q19::cx(q) == D3Q19::cx(p) && D3Q19::cy(q) == D3Q19::cy(p) && D3Q19::cz(q) == D3Q19::cz(p))
          << q << " and " << p;
  int rest = 0, axis = 0, diagonal = 0;
  for (int q = 0; q < D3Q19::size; ++q) {
    const int n2 = D3Q19::cx(q) * D3Q19::cx(q) + D3Q19::cy(q) * D3Q19::cy(q) + D3Q19::cz(q) * D3Q19::cz(q);
    (n2 == 0 ? rest : n2 == 1 ? axis : diagonal) += 1;
    EXPECT_EQ(D3Q19::weight(q), n2 == 0 ? 1.0 / 3 : n2 == 1 ? 1.0 / 18 : 1.0 / 36) << q;
    EXPECT_LE(n2, 2) << q;
  }
  EXPECT_EQ(rest, 1);
  EXPECT_EQ(axis, 6);
  EXPECT_EQ(diagonal, 12);
}

TEST(LbmLattice, OppositesPointBackwards) {
  for (int q = 0; q < D3Q19::size; ++q) {
    const int o = D3Q19::opposite(q);
    EXPECT_EQ(D3Q19::opposite(o), q);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(D3Q19::c(o, a), -D3Q19::c(q, a)) << q;
    EXPECT_EQ(D3Q19::weight(o), D3Q19::weight(q));
  }
}

TEST(LbmLattice, MomentsAreIsotropicToFourthOrder) {
  const double cs2 = D3Q19::cs2;
  auto delta = [](int a, int b) { return a == b ? 1.0 : 0.0; };
  for (int a = 0; a < 3; ++a) {
    double m1 = 0;
    for (int q = 0; q < D3Q19::size; ++q) m1 += D3Q19::weight(q) * D3Q19::c(q, a);
    EXPECT_NEAR(m1, 0, 1e-15);
    for (int b = 0; b < 3; ++b) {
      double m2 = 0;
      for (int q = 0; q < D3Q19::size; ++q) m2 += D3Q19::weight(q) * D3Q19::c(q, a) * D3Q19::c(q, b);
      EXPECT_NEAR(m2, cs2 * delta(a, b), 1e-15) << a << b;
      for (int c = 0; c < 3; ++c) {
        double m3 = 0;
        for (int q = 0; q < D3Q19::size; ++q) m3 += D3Q19::weight(q) * D3Q19::c(q, a) * D3Q19::c(q, b) * D3Q19::c(q, c);
        EXPECT_NEAR(m3, 0, 1e-15);
        for (int d = 0; d < 3; ++d) {
          double m4 = 0;
          for (int q = 0; q < D3Q19::size; ++q)
            m4 += D3Q19::weight(q) * D3Q19::c(q, a) * D3Q19::c(q, b) * D3Q19::c(q, c) * D3Q19::c(q, d);
          const double iso =
              cs2 * cs2 * (delta(a, b) * delta(c, d) + delta(a, c) * delta(b, d) + delta(a, d) * delta(b, c));
          EXPECT_NEAR(m4, iso, 1e-15) << a << b << c << d;
        }
      }
    }
  }
}

template <class Space>
class LbmLatticeOnSpace : public ::testing::Test {};
TYPED_TEST_SUITE(LbmLatticeOnSpace, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// sum over q of w_q (1 + |c_q|^2) + (opposite(opposite(q)) - q), evaluated inside a kernel
// (a free function: CUDA extended lambdas cannot live in a test body).
template <class Space>
double lattice_sum_in_kernel() {
  double sum = 0;
  Kokkos::parallel_reduce(
      "pk::test::lbm::lattice", Kokkos::RangePolicy<Space>(Space{}, 0, 1),
      KOKKOS_LAMBDA(int, double& s) {
        pk::lbm::for_each_direction([&](auto qc) {
          constexpr int q = decltype(qc)::value;
          s += D3Q19::weight(q) *
                   (1 + D3Q19::cx(q) * D3Q19::cx(q) + D3Q19::cy(q) * D3Q19::cy(q) + D3Q19::cz(q) * D3Q19::cz(q)) +
               (D3Q19::opposite(D3Q19::opposite(q)) - q);
        });
      },
      sum);
  return sum;
}

// The compile-time direction loop sees the same tables inside a kernel.
TYPED_TEST(LbmLatticeOnSpace, KernelsSeeTheSameLattice) {
  EXPECT_NEAR(lattice_sum_in_kernel<TypeParam>(), 1 + 3 * D3Q19::cs2, 1e-15);  // sum w (1 + |c|^2) = 1 + 3 c_s^2
}

}  // namespace
