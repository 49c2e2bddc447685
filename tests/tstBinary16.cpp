// pk::Binary16 against an independent implementation, the compiler's _Float16 (host code
// only: nvcc cannot compile it for devices), and the storage of fp16 lattices on every
// space against pk::Binary16 on the host.
#include "floats.hpp"
#include "spaces.hpp"

#include <pk/core/binary16.hpp>
#include <pk/lbm/details/storage.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

using pk::bits_of;
using pk::float_of;
using pk::test::same;

std::uint16_t compiler_half(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  std::uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

TEST(Binary16, DecodesEveryHalfAsTheCompiler) {
  int mismatches = 0;
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const std::uint16_t bits = static_cast<std::uint16_t>(h);
    _Float16 reference;
    std::memcpy(&reference, &bits, sizeof bits);
    if (!same(static_cast<float>(pk::Binary16::from_bits(bits)), static_cast<float>(reference)) && mismatches++ < 5)
      ADD_FAILURE() << std::hex << "half 0x" << h;
  }
  EXPECT_EQ(mismatches, 0);
}

// Every exponent and every kept mantissa, with the 13 dropped bits just below, at and just
// above the rounding ties (ties go to the even neighbour), both signs; then a sweep.
TEST(Binary16, RoundsFloatsToNearestEvenAsTheCompiler) {
  int mismatches = 0;
  const auto check = [&](std::uint32_t x) {
    const float f = float_of(x);
    const std::uint16_t ours = pk::Binary16(f).bits(), reference = compiler_half(f);
    const bool nan = std::isnan(f) && (ours & 0x7e00u) == 0x7e00u;
    if (ours != reference && !nan && mismatches++ < 5)
      ADD_FAILURE() << std::hex << "float 0x" << x << ": 0x" << ours << ", compiler 0x" << reference;
  };
  for (std::uint32_t high = 0; high < (1u << 19); ++high)  // sign, exponent, 10 kept mantissa bits
    for (std::uint32_t low : {0x0u, 0x1u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu}) check(high << 13 | low);
  for (std::uint64_t x = 0; x < (1ull << 32); x += 4099) check(static_cast<std::uint32_t>(x));
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(pk::Binary16(0.1f).bits(), 0x2e66);
  EXPECT_EQ(static_cast<float>(pk::Binary16(65520.0f)), INFINITY);  // rounds past the largest half, 65504
  EXPECT_TRUE(std::isnan(static_cast<float>(pk::Binary16(NAN))));
}

// pk::convert, which takes the hardware's conversions where the host has them (8 or 16 at a
// time), gives Binary16's bits: every half decoded, and floats around every rounding tie
// encoded, in blocks whose lengths leave partial vectors (23) and none (64).
template <int count>
void check_convert_blocks() {
  int mismatches = 0;
  for (std::uint32_t first = 0; first < 65536; first += count) {
    pk::Binary16 halves[count];
    float decoded[count];
    for (int l = 0; l < count; ++l)
      halves[l] = pk::Binary16::from_bits(static_cast<std::uint16_t>((first + l) & 0xffffu));
    pk::convert<count>(halves, decoded);
    for (int l = 0; l < count; ++l)
      if (!same(decoded[l], static_cast<float>(halves[l])) && mismatches++ < 5)
        ADD_FAILURE() << std::hex << "decoding half 0x" << halves[l].bits();
  }
  for (std::uint32_t high = 0; high < (1u << 19); high += count) {  // sign, exponent, kept mantissa
    float floats[count];
    pk::Binary16 encoded[count];
    for (int l = 0; l < count; ++l) floats[l] = float_of(((high + l) & 0x7ffffu) << 13 | 0x1000u);  // a tie
    pk::convert<count>(floats, encoded);
    for (int l = 0; l < count; ++l)
      if (!std::isnan(floats[l]) && encoded[l].bits() != pk::Binary16(floats[l]).bits() && mismatches++ < 5)
        ADD_FAILURE() << "encoding " << floats[l];
  }
  EXPECT_EQ(mismatches, 0) << count << " at a time";
}

TEST(Binary16, ConvertsBlocksAsElementByElement) {
  check_convert_blocks<23>();
  check_convert_blocks<64>();
}

template <class Space>
class Binary16Storage : public ::testing::Test {};
TYPED_TEST_SUITE(Binary16Storage, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// An fp16 lattice on each space (Binary16 on hosts, the device's half type on GPUs) rounds
// as pk::Binary16 does on the host, so that spaces take the same steps.
TYPED_TEST(Binary16Storage, EverySpaceRoundsAsTheHost) {
  using Space = TypeParam;
  using Storage = pk::lbm::Details::storage_t<pk::Binary16, Space>;
  static_assert(sizeof(Storage) == 2, "fp16 storage takes 16 bits");
  const int n = 1 << 20;
  Kokkos::View<float*, Kokkos::HostSpace> input("pk::test::binary16::input", n);
  for (int i = 0; i < n; ++i)  // spread over the finite halves' range, both signs, ties included
    input(i) = float_of(static_cast<std::uint32_t>(i & 1) << 31 |
                        (0x33000000u + static_cast<std::uint32_t>(i) * 2459u % 0x14800000u));
  pk::test::expect_rounding_as_on_the_host<Space, Storage, pk::Binary16>(input);
}

}  // namespace
