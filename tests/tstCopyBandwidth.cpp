#include "spaces.hpp"

#include <pk/app/space_selection.hpp>
#include <probes/copy_bandwidth.hpp>
#include <probes/fp64_peak.hpp>

#include <cmath>
#include <string>

namespace {

template <class Space>
class CopyBandwidthTest : public ::testing::Test {};
TYPED_TEST_SUITE(CopyBandwidthTest, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// Copies random data over a poisoned destination and returns the result on the host.
template <class Space>
Kokkos::View<double*, Kokkos::HostSpace> copy_on(
    const Space& space, const Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace>& input) {
  using Memory = typename Space::memory_space;
  Kokkos::View<double*, Memory> x("x", input.extent(0)), y("y", input.extent(0));
  Kokkos::deep_copy(x, Kokkos::View<const double*, Kokkos::HostSpace>(input.data(), input.extent(0)));
  Kokkos::deep_copy(y, std::nan(""));
  pk::copy(space, x, y);
  space.fence();
  auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, y);
  return out;
}

TYPED_TEST(CopyBandwidthTest, CopyWritesEveryElementExactly) {
  for (std::size_t n : {1ul, 1000ul, 1ul << 20}) {
    const auto input = pk::test::random_host_vector(n);
    const auto out = copy_on(TypeParam{}, input);
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < n; ++i) mismatches += out(i) != input(i);
    EXPECT_EQ(mismatches, 0u) << "n = " << n;
  }
}

TYPED_TEST(CopyBandwidthTest, CopyRejectsMismatchedSizes) {
  using Memory = typename TypeParam::memory_space;
  Kokkos::View<double*, Memory> x("x", 10), y("y", 11);
  EXPECT_THROW(pk::copy(TypeParam{}, x, y), pk::Error);
}

TYPED_TEST(CopyBandwidthTest, ProbeCountsBytesAndReportsTheBestCopyAsLimit) {
  const std::size_t n = 1 << 20;
  const auto bw = pk::measure_copy_bandwidth(TypeParam{}, n, 3);
  EXPECT_EQ(bw.bytes_per_copy, 2 * n * sizeof(double));
  EXPECT_TRUE(std::isfinite(bw.range_policy_gbs) && bw.range_policy_gbs > 0);
  EXPECT_TRUE(std::isfinite(bw.deep_copy_gbs) && bw.deep_copy_gbs > 0);
  EXPECT_TRUE(std::isfinite(bw.in_place_gbs) && bw.in_place_gbs > 0);
  EXPECT_EQ(bw.limit_gbs(), std::max({bw.range_policy_gbs, bw.deep_copy_gbs, bw.in_place_gbs}));
  EXPECT_THROW(pk::measure_copy_bandwidth(TypeParam{}, 0, 3), pk::Error);
}

TYPED_TEST(CopyBandwidthTest, FootprintProbeIsTheFasterOfTheRunsProbeAndACopyOfTheFootprintBesideIt) {
  const TypeParam space{};
  const auto probe = pk::measure_copy_bandwidth(space, 1 << 20, 3);
  const auto large = pk::footprint_copy_bandwidth(space, 4.0 * probe.bytes_per_copy, probe, 3);
  EXPECT_EQ(large.bytes_per_copy, probe.bytes_per_copy);  // never larger than the run's probe
  EXPECT_GE(large.limit_gbs(), probe.limit_gbs());
  const double footprint = 1 << 16;
  const auto small = pk::footprint_copy_bandwidth(space, footprint, probe, 3);
  EXPECT_GE(small.limit_gbs(), probe.limit_gbs());
  if (small.bytes_per_copy != probe.bytes_per_copy) EXPECT_EQ(small.bytes_per_copy, footprint);
  const auto batched = pk::measure_copy_bandwidth(space, 1 << 12, 3, 7);
  EXPECT_TRUE(std::isfinite(batched.limit_gbs()) && batched.limit_gbs() > 0);
  EXPECT_THROW(pk::measure_copy_bandwidth(space, 1 << 12, 3, 0), pk::Error);
}

TYPED_TEST(CopyBandwidthTest, InterleavedRunsTakeTurnsAfterOneWarmUpEach) {
  std::string order;
  const auto seconds = pk::interleaved_seconds(
      TypeParam{}, 3, [&] { order += 'a'; }, [&] { order += 'b'; });
  EXPECT_EQ(order, "abababab");  // the warm-up round, then three in turn
  for (const pk::RepeatedSeconds& s : seconds) {
    EXPECT_EQ(s.repeats, 3);
    EXPECT_TRUE(s.min <= s.median && s.median <= s.max) << s.min << " " << s.median << " " << s.max;
  }
}

TYPED_TEST(CopyBandwidthTest, KernelTimedBesideItsFootprintCopy) {
  const TypeParam space{};
  const auto probe = pk::measure_copy_bandwidth(space, 1 << 20, 3);
  int runs = 0;
  const auto beside = pk::time_beside_footprint_copy(space, 3, 1 << 16, probe, [&] { ++runs; });
  EXPECT_EQ(runs, 4);  // one warm-up, three timed
  EXPECT_EQ(beside.first.repeats, 3);
  EXPECT_GE(beside.second.limit_gbs(), probe.limit_gbs());  // the faster of the footprint's copy and the probe
}

// A bench times the FP64 probe in turn with the kernel it rates: one warm-up each, then rounds;
// the probe's rate is finite.
TYPED_TEST(CopyBandwidthTest, Fp64ProbeReportsAFiniteRateTakingTurnsWithAKernel) {
  const pk::Fp64Probe<TypeParam> probe(TypeParam{});
  int runs = 0;
  const auto times = pk::interleaved_seconds(TypeParam{}, 3, probe, [&] { ++runs; });
  EXPECT_EQ(runs, 4);
  EXPECT_EQ(times[0].repeats, 3);
  const double gflops = probe.gflops(times[0].median);
  EXPECT_TRUE(std::isfinite(gflops) && gflops > 0) << gflops;
  EXPECT_DOUBLE_EQ(probe.gflops(2 * times[0].median), gflops / 2);  // a rate: twice the time, half of it
}

TEST(CopyAcrossSpaces, EverySpaceGivesTheSameResult) {
  if (pk::test::one_space_build) GTEST_SKIP() << pk::test::nothing_to_compare;
  const auto input = pk::test::random_host_vector(1 << 16);
  std::vector<Kokkos::View<double*, Kokkos::HostSpace>> results;
  pk::for_each_selected_space(pk::select_spaces("all"),
                              [&](const auto& space) { results.push_back(copy_on(space, input)); });
  ASSERT_FALSE(results.empty());
  for (const auto& r : results)
    for (std::size_t i = 0; i < input.extent(0); ++i) ASSERT_EQ(r(i), results.front()(i)) << "at " << i;
}

}  // namespace
