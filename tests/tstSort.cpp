// pk::merge_sort on every space: the order std::stable_sort gives, for lengths that are and are
// not powers of two (odd passes end in the scratch, even ones in the keys), with many ties.
#include "spaces.hpp"

#include <pk/core/sort.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using pk::test::EnabledSpaceTypes;

template <class Space>
class Sort : public ::testing::Test {};
TYPED_TEST_SUITE(Sort, EnabledSpaceTypes, pk::test::SpaceNames);

// A key with a tag it is not ordered by, so that ties show whether the sort kept their order.
struct Tagged {
  std::uint32_t key, tag;
  KOKKOS_INLINE_FUNCTION bool operator<(const Tagged& other) const { return key < other.key; }
};

// (Free functions: CUDA lambdas cannot live in a test body.)
template <class Space>
void check_merge_sort() {
  using Keys = Kokkos::View<Tagged*, typename Space::memory_space>;
  Space space;
  std::mt19937 engine(20261207);
  for (int n : {0, 1, 2, 3, 5, 64, 1000, 4097}) {
    std::uniform_int_distribution<std::uint32_t> key(0, static_cast<std::uint32_t>(n / 4 + 1));
    std::vector<Tagged> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = {key(engine), static_cast<std::uint32_t>(i)};
    Keys keys("pk::test::sort::keys", n), scratch("pk::test::sort::scratch", n + 3);
    auto host = Kokkos::create_mirror_view(keys);
    std::copy(expected.begin(), expected.end(), host.data());
    Kokkos::deep_copy(keys, host);
    pk::merge_sort(space, keys, scratch);
    Kokkos::deep_copy(host, keys);
    std::stable_sort(expected.begin(), expected.end());
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(host(i).key, expected[i].key) << "n " << n << ", entry " << i;
      ASSERT_EQ(host(i).tag, expected[i].tag) << "n " << n << ", entry " << i;
    }
  }
  Keys keys("pk::test::sort::keys", 10), scratch("pk::test::sort::scratch", 9);
  EXPECT_THROW(pk::merge_sort(space, keys, scratch), pk::InternalError);
}
TYPED_TEST(Sort, MergeSortOrdersAsStableSortAndKeepsTiesInOrder) { check_merge_sort<TypeParam>(); }

}  // namespace
