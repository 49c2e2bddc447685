#include "spaces.hpp"

#include <pk/app/space_selection.hpp>
#include <pk/core/error.hpp>

#include <algorithm>
#include <string>

namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(SpaceSelection, AllMeansEveryAvailableSpace) {
  const auto all = pk::select_spaces("all");
  const auto statuses = pk::enabled_space_statuses();
  ASSERT_EQ(all.size(), statuses.size());  // the tests only start when every space can run
  for (const auto& s : statuses) EXPECT_TRUE(contains(all, s.name)) << s.name;
  EXPECT_TRUE(contains(all, "openmp"));
}

TEST(SpaceSelection, ListIsDeduplicatedInOrder) {
  const auto first = pk::enabled_space_statuses().front().name;
  const auto chosen = pk::select_spaces(first + "," + first);
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen.front(), first);
}

TEST(SpaceSelection, UnknownNameIsRejectedWithTheChoices) {
  try {
    pk::select_spaces("openmp,vulkan");
    FAIL() << "expected pk::Error";
  } catch (const pk::Error& e) {
    EXPECT_STREQ(e.what(), "unknown space 'vulkan' (use openmp, cuda, hip or all)");
  }
  EXPECT_THROW(pk::select_spaces(""), pk::Error);
  EXPECT_THROW(pk::select_spaces(","), pk::Error);
}

TEST(SpaceSelection, SpaceMissingFromTheBuildIsNamedAsSuch) {
  std::string enabled;
  for (const auto& s : pk::enabled_space_statuses()) enabled += (enabled.empty() ? "" : ", ") + s.name;
  int missing = 0;
  for (const std::string name : pk::backend_names) {
    if (contains(pk::select_spaces("all"), name)) continue;
    ++missing;
    try {
      pk::select_spaces(name);
      FAIL() << "expected pk::Error for " << name;
    } catch (const pk::Error& e) {
      EXPECT_EQ(e.what(), "space '" + name + "' is not enabled in this build (enabled: " + enabled + ")");
    }
  }
  EXPECT_GE(missing, 1) << "a build holds one GPU backend at most";
}

template <class Space>
class SpaceTraitsTest : public ::testing::Test {};
TYPED_TEST_SUITE(SpaceTraitsTest, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(SpaceTraitsTest, NameSelectsExactlyThisSpace) {
  const std::string name = pk::SpaceTraits<TypeParam>::name;
  int calls = 0;
  pk::for_each_selected_space(pk::select_spaces(name), [&](const auto& space) {
    EXPECT_TRUE((std::is_same_v<std::decay_t<decltype(space)>, TypeParam>));
    ++calls;
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
