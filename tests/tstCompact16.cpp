// pk::Compact16 (1 sign, 4 exponent and 11 mantissa bits) against its definition: every bit
// pattern decoded from its fields, every rounding boundary between neighbouring values, and
// the same results on every space.
#include "floats.hpp"
#include "spaces.hpp"

#include <pk/core/compact16.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace {

using pk::bits_of;
using pk::float_of;
using pk::test::same;

// The value a pattern stands for, from its fields: exponent 0 subnormal (m 2^-24), 15
// infinity (m = 0) or NaN, else 2^(e - 14) (1 + m / 2048).
double defined_value(std::uint16_t bits) {
  const int e = (bits >> 11) & 15, m = bits & 2047;
  const double magnitude = e == 15  ? (m == 0 ? std::numeric_limits<double>::infinity() : std::nan(""))
                           : e == 0 ? std::ldexp(m, -24)
                                    : std::ldexp(1 + m / 2048.0, e - 14);
  return bits & 0x8000 ? -magnitude : magnitude;
}

TEST(Compact16, DecodesEveryPatternFromItsFields) {
  int mismatches = 0;
  for (int b = 0; b < 65536; ++b) {
    const auto c = pk::Compact16::from_bits(static_cast<std::uint16_t>(b));
    if (!same(static_cast<float>(c), static_cast<float>(defined_value(c.bits()))) && mismatches++ < 5)
      ADD_FAILURE() << "pattern " << b << ": " << static_cast<float>(c);
  }
  EXPECT_EQ(mismatches, 0);
}

// Each finite value encodes to itself; the midpoint between neighbours (exact in float) to
// the one with an even mantissa, and a float either side of it to the nearer one.
TEST(Compact16, RoundsToNearestEven) {
  int mismatches = 0;
  const auto expect = [&](float f, std::uint16_t want) {
    if (pk::Compact16(f).bits() != want && mismatches++ < 5)
      ADD_FAILURE() << f << " encodes to " << pk::Compact16(f).bits() << ", not " << want;
  };
  for (std::uint16_t b = 0; b < 0x7800; ++b)
    for (const std::uint16_t sign : {0, 0x8000}) {
      const std::uint16_t low = sign | b, high = sign | (b + 1);
      expect(static_cast<float>(defined_value(low)), low);
      // Past the largest value the next one would be 2, which overflows to infinity.
      const double next = b + 1 == 0x7800 ? (sign ? -2.0 : 2.0) : defined_value(high);
      const float middle = static_cast<float>((defined_value(low) + next) / 2);
      expect(middle, (b & 1) ? high : low);
      expect(std::nextafter(middle, 0.0f), low);
      expect(std::nextafter(middle, sign ? -4.0f : 4.0f), high);
    }
  expect(0.1f, 0x54cd);
  expect(2.0f, 0x7800);
  expect(std::numeric_limits<float>::infinity(), 0x7800);
  EXPECT_TRUE(std::isnan(static_cast<float>(pk::Compact16(std::nanf("")))));
  EXPECT_EQ(mismatches, 0);
}

template <class Space>
class Compact16OnSpaces : public ::testing::Test {};
TYPED_TEST_SUITE(Compact16OnSpaces, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(Compact16OnSpaces, EverySpaceRoundsAsTheHost) {
  using Space = TypeParam;
  const int n = 1 << 20;
  Kokkos::View<float*, Kokkos::HostSpace> input("pk::test::compact16::input", n);
  for (int i = 0; i < n; ++i)  // from below the smallest subnormal to past infinity, both signs
    input(i) = float_of(static_cast<std::uint32_t>(i & 1) << 31 |
                        (0x32800000u + static_cast<std::uint32_t>(i) * 2459u % 0x0e000000u));
  pk::test::expect_rounding_as_on_the_host<Space, pk::Compact16, pk::Compact16>(input);
}

}  // namespace
