// pk::convert_streaming writes what pk::convert writes, for each type a lattice stores:
// on a line boundary (stores around the caches where the host has them) and off one (plain
// stores), fenced before the values are read.
#include <pk/core/compact16.hpp>
#include <pk/core/streaming_stores.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

template <class From, class To, int count>
void expect_streaming_writes_as_convert() {
  alignas(64) From from[count];
  for (int l = 0; l < count; ++l) from[l] = static_cast<From>(std::sin(0.37 * l) * (l % 3 == 0 ? 1e-3 : 1.5));
  To plain[count];
  pk::convert<count>(from, plain);
  for (const int offset : {0, 1}) {  // on a line boundary, then one element past it
    alignas(64) To target[count + 1] = {};
    pk::convert_streaming<count>(from, target + offset);
    pk::streaming_fence();
    EXPECT_EQ(std::memcmp(target + offset, plain, sizeof plain), 0) << count << " elements, offset " << offset;
  }
}

TEST(StreamingStores, WriteWhatConvertWrites) {
  expect_streaming_writes_as_convert<float, float, 16>();
  expect_streaming_writes_as_convert<float, float, 64>();
  expect_streaming_writes_as_convert<double, double, 8>();
  expect_streaming_writes_as_convert<double, double, 32>();
  expect_streaming_writes_as_convert<float, pk::Binary16, 32>();
  expect_streaming_writes_as_convert<float, pk::Compact16, 32>();
}

}  // namespace
