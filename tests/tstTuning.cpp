#include "spaces.hpp"

#include <pk/core/tuning.hpp>

#include <cstdlib>
#include <string>

namespace {

template <class Space>
class TuningTest : public ::testing::Test {};
TYPED_TEST_SUITE(TuningTest, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(TuningTest, DeviceFactsDescribeTheDevice) {
  const pk::DeviceFacts facts = pk::device_facts(TypeParam{});
  EXPECT_FALSE(facts.name.empty());
  EXPECT_GT(facts.multiprocessors, 0);
  if constexpr (!pk::runs_on_host<TypeParam>) {
    EXPECT_GE(facts.team_scratch_bytes, 48 * 1024);  // every CUDA GPU offers 48 KiB per block
    EXPECT_GE(facts.multiprocessor_scratch_bytes, facts.team_scratch_bytes);
    EXPECT_GT(facts.registers_per_multiprocessor, 0);
  }
}

// Work proportional to `units`: the candidate with the fewest units is the fastest by far.
template <class Space>
void busy(const Space& space, const Kokkos::View<double*, typename Space::memory_space>& out, int units) {
  Kokkos::parallel_for(
      "pk::test::busy", Kokkos::RangePolicy<Space>(space, 0, out.extent(0)), KOKKOS_LAMBDA(const int i) {
        double x = i;
        for (int k = 0; k < 1000 * units; ++k) x = x * 0.999 + 1;
        out(i) = x;
      });
}

TYPED_TEST(TuningTest, AutotunePicksTheFastestAndCachesIt) {
  const TypeParam space;
  Kokkos::View<double*, typename TypeParam::memory_space> out("pk::test::busy_out", 1 << 14);
  const std::string key = std::string("test.fastest.") + pk::SpaceTraits<TypeParam>::name;
  int trials = 0;
  const int choice = pk::autotune(space, key, {16, 1, 4}, [&](int units) {
    ++trials;
    busy(space, out, units);
  });
  EXPECT_EQ(choice, 1);
  EXPECT_EQ(trials, 3 * 4);  // a warm-up and three timed runs per candidate
  const int again = pk::autotune(space, key, {16, 1, 4}, [&](int) { ADD_FAILURE() << "ran a trial for a cached key"; });
  EXPECT_EQ(again, 1);
}

TYPED_TEST(TuningTest, AutotuneOffTakesTheFirstCandidate) {
  ::setenv("PK_AUTOTUNE", "0", 1);
  const std::string key = std::string("test.off.") + pk::SpaceTraits<TypeParam>::name;
  const int choice = pk::autotune(TypeParam{}, key, {7, 3}, [&](int) { ADD_FAILURE() << "timed with PK_AUTOTUNE=0"; });
  ::unsetenv("PK_AUTOTUNE");
  EXPECT_EQ(choice, 7);
}

TYPED_TEST(TuningTest, AutotuneRefusesNoCandidates) {
  EXPECT_THROW(pk::autotune(TypeParam{}, "test.none", {}, [](int) {}), pk::Error);
}

}  // namespace
