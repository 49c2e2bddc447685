// The sparse grid of GBEES: hash insert and lookup with capacity growth, a growth step that
// inserts each new cell once (checked against a brute-force set on the host), and the
// prune compaction keeping exactly the marked cells, in their order or in Z-order, with their
// neighbour table.
#include "spaces.hpp"

#include <pk/gbees/grid.hpp>
#include <pk/gbees/solver.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace {

using namespace pk::gbees;

template <class Space>
class GbeesGrid : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesGrid, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// Key of the i-th cell of a 3-D block of 17 x 17 x ... cells shifted to negative indices.
KOKKOS_INLINE_FUNCTION std::uint64_t block_key(const Details::KeyCodec& codec, int i) {
  std::int64_t index[max_dimension] = {i % 17 - 8, (i / 17) % 17 - 8, i / 289 - 3};
  std::uint64_t key = 0;
  codec.pack(index, key);
  return key;
}

template <class Space>
void insert_block(SparseGrid<Space>& grid, const Space& space, int count) {
  const auto codec = grid.codec();
  grid.insert_pass([&](const typename SparseGrid<Space>::Inserter& insert) {
    Kokkos::parallel_for(
        "pk::test::gbees::insert", Kokkos::RangePolicy<Space>(space, 0, count),
        KOKKOS_LAMBDA(const int i) { insert(block_key(codec, i)); });
  });
}

TEST(GbeesKey, PacksAndUnpacksEveryAxisIncludingNegativeIndices) {
  for (int n = 2; n <= max_dimension; ++n) {
    const Details::KeyCodec codec(n);
    std::int64_t index[max_dimension];
    for (int d = 0; d < n; ++d) index[d] = (d % 2 ? -1 : 1) * (codec.limit() - 1 - d);
    std::uint64_t key = 0;
    ASSERT_TRUE(codec.pack(index, key));
    for (int d = 0; d < n; ++d) EXPECT_EQ(codec.index(key, d), index[d]) << "n " << n << " axis " << d;
    std::uint64_t moved = 0;
    ASSERT_TRUE(codec.shift(key, n - 1, 1, moved));
    EXPECT_EQ(codec.index(moved, n - 1), index[n - 1] + 1);
    index[0] = codec.limit();  // one past the largest representable index
    EXPECT_FALSE(codec.pack(index, key));
  }
}

TEST(GbeesKey, ZOrderInterleavesTheLowBitsOfEveryAxis) {
  const int low = 4;
  for (int n = 2; n <= max_dimension; ++n)
    for (int members : {0, 3}) {
      const Details::KeyCodec codec(n, members);
      const int member = members == 0 ? 0 : 5;
      std::int64_t index[max_dimension];
      for (int d = 0; d < n; ++d) index[d] = (d % 2 ? -1 : 1) * (2 * d + 2);  // even, |index| < 2^low
      std::uint64_t key = 0;
      ASSERT_TRUE(codec.pack(index, key, member));
      EXPECT_EQ(codec.member(codec.member_part(key)), member);
      EXPECT_EQ(codec.member_part(key) << members, std::uint64_t(0));
      const std::uint64_t z = codec.z_order(key, low);
      EXPECT_LT(z, std::uint64_t(1) << (n * low)) << "n " << n;
      for (int d = 0; d < n; ++d) {
        // A step from an even index changes the axis's lowest bit alone: place d of the order.
        std::uint64_t next = 0;
        ASSERT_TRUE(codec.shift(key, d, 1, next));
        EXPECT_EQ(codec.z_order(next, low) - z, std::uint64_t(1) << d) << "n " << n << " axis " << d;
      }
      index[0] += std::int64_t(1) << low;  // the same low bits
      ASSERT_TRUE(codec.pack(index, key, member));
      EXPECT_EQ(codec.z_order(key, low), z) << "n " << n;
    }
}

// Whether cell a comes before cell b in the compaction's Z-order (bit k of axis d at place
// k n + d), from their indices alone: the axis whose indices differ in the highest place
// decides. The compaction interleaves the low bits of each index (two's complement); for a
// grid of a few thousand cells at least 16 of them, so for indices of magnitude below 2^15 the
// low 16 bits give the same order.
bool z_before(const Details::KeyCodec& codec, std::uint64_t a, std::uint64_t b) {
  const auto low_bits = [&](std::uint64_t key, int d) {
    return static_cast<std::uint64_t>(codec.index(key, d)) & 0xffff;
  };
  int decides = -1, place = -1;
  for (int d = 0; d < codec.n; ++d) {
    const std::uint64_t differ = low_bits(a, d) ^ low_bits(b, d);
    for (int k = 0; k < 16; ++k)
      if ((differ >> k & 1) && k * codec.n + d > place) {
        place = k * codec.n + d;
        decides = d;
      }
  }
  return decides >= 0 && low_bits(a, decides) < low_bits(b, decides);
}

// (Free functions: CUDA lambdas cannot live in a test body.)
template <class Space>
void check_insert_lookup_growth() {
  Space space;
  SparseGrid<Space> grid(space, 3, 64);  // far too small: the insert pass must grow it
  const int count = 5000;
  insert_block(grid, space, count);
  ASSERT_EQ(grid.count(), count);
  EXPECT_GE(grid.map_capacity(), static_cast<std::size_t>(count));
  EXPECT_GE(grid.capacity(), grid.map_capacity());
  EXPECT_GT(grid.map_rehashes(), 0u);

  // Every key is found, at a slot that holds that key; the slots are 0..count-1.
  auto map = grid.map();
  auto key = grid.key();
  const auto codec = grid.codec();
  Kokkos::View<int*, typename Space::memory_space> slot_of("pk::test::gbees::slot_of", count);
  Kokkos::parallel_for(
      "pk::test::gbees::lookup", Kokkos::RangePolicy<Space>(space, 0, count), KOKKOS_LAMBDA(const int i) {
        const std::uint64_t k = block_key(codec, i);
        const auto index = map.find(k);
        slot_of(i) = map.valid_at(index) && key(map.value_at(index)) == k ? map.value_at(index) : -1;
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, slot_of);
  std::vector<int> slots(host.data(), host.data() + count);
  EXPECT_EQ(*std::min_element(slots.begin(), slots.end()), 0);
  std::sort(slots.begin(), slots.end());
  EXPECT_EQ(std::unique(slots.begin(), slots.end()) - slots.begin(), count);
  EXPECT_EQ(slots.back(), count - 1);

  // Inserting the same keys again adds nothing.
  insert_block(grid, space, count);
  EXPECT_EQ(grid.count(), count);
}
TYPED_TEST(GbeesGrid, InsertsLooksUpAndGrowsCapacityWithoutLosingCells) { check_insert_lookup_growth<TypeParam>(); }

// Marks the cells whose key's keep_if(key) holds, compacts (removed: the probability it
// reports removed), and checks that the kept cells are those, in Z-order if the grid keeps it,
// else in their order.
template <class Space, class Keep>
void compact_and_check_order(SparseGrid<Space>& grid, const Space& space, Keep keep_if, double& removed) {
  auto key = grid.key();
  auto keep = grid.keep();
  Kokkos::parallel_for(
      "pk::test::gbees::mark", Kokkos::RangePolicy<Space>(space, 0, grid.count()),
      KOKKOS_LAMBDA(const int c) { keep(c) = keep_if(key(c)); });
  const auto before = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, key);
  std::vector<std::uint64_t> expected;
  for (int c = 0; c < grid.count(); ++c)
    if (keep_if(before(c))) expected.push_back(before(c));
  const auto codec = grid.codec();
  if (grid.z_order())
    std::sort(expected.begin(), expected.end(),
              [&](std::uint64_t a, std::uint64_t b) { return z_before(codec, a, b); });
  grid.rebuild_neighbours();
  removed = grid.compact();
  ASSERT_EQ(grid.count(), static_cast<std::int32_t>(expected.size()));
  const auto after = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, grid.key());
  for (std::size_t s = 0; s < expected.size(); ++s) ASSERT_EQ(after(s), expected[s]) << "slot " << s;
}

struct KeepAllBut {
  std::uint64_t divisor, modulus;
  KOKKOS_INLINE_FUNCTION bool operator()(std::uint64_t key) const { return (key / divisor) % modulus != 0; }
};

// (Free functions: CUDA lambdas cannot live in a test body.)
template <class Space>
void check_prune_compaction(bool z_order) {
  Space space;
  SparseGrid<Space> grid(space, 3, 1024);
  grid.set_z_order(z_order);
  const int count = 3000;
  insert_block(grid, space, count);
  auto key = grid.key();
  auto probability = grid.probability();
  Kokkos::parallel_for(
      "pk::test::gbees::mark", Kokkos::RangePolicy<Space>(space, 0, count),
      KOKKOS_LAMBDA(const int c) { probability(c) = static_cast<double>(key(c) % 1000); });
  const KeepAllBut keep_if{7, 3};
  const auto before_key = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, key);
  std::vector<std::uint64_t> removed_keys;
  double removed_expected = 0;
  for (int c = 0; c < count; ++c)
    if (!keep_if(before_key(c))) {
      removed_keys.push_back(before_key(c));
      removed_expected += static_cast<double>(before_key(c) % 1000);
    }
  double removed = 0;
  compact_and_check_order(grid, space, keep_if, removed);
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_DOUBLE_EQ(removed, removed_expected);
  // Each kept cell's probability moved with it.
  const auto after_key = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, grid.key());
  const auto after_p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, grid.probability());
  for (int s = 0; s < grid.count(); ++s) EXPECT_EQ(after_p(s), static_cast<double>(after_key(s) % 1000));
  // The rebuilt map finds every kept key at its new slot and none of the removed ones.
  const int kept = grid.count(), gone = static_cast<int>(removed_keys.size());
  Kokkos::View<std::uint64_t*, Kokkos::HostSpace> removed_host("pk::test::gbees::removed_host", gone);
  for (int i = 0; i < gone; ++i) removed_host(i) = removed_keys[i];
  auto removed_view = Kokkos::create_mirror_view_and_copy(typename Space::memory_space{}, removed_host);
  auto map = grid.map();
  auto new_key = grid.key();
  int wrong = -1;
  Kokkos::parallel_reduce(
      "pk::test::gbees::check_map", Kokkos::RangePolicy<Space>(space, 0, kept + gone),
      KOKKOS_LAMBDA(const int i, int& bad) {
        if (i < kept) {
          const auto index = map.find(new_key(i));
          if (!map.valid_at(index) || map.value_at(index) != i) ++bad;
        } else if (map.valid_at(map.find(removed_view(i - kept)))) {
          ++bad;
        }
      },
      wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(map.size(), static_cast<std::uint32_t>(kept));
  // The neighbour table the compaction moved is the one lookups in the new map give.
  const auto moved = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, grid.neighbour());
  grid.rebuild_neighbours();
  const auto looked_up = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, grid.neighbour());
  int found = 0;
  for (int s = 0; s < kept; ++s)
    for (int d = 0; d < 6; ++d) {
      ASSERT_EQ(moved(s, d), looked_up(s, d)) << "slot " << s << " entry " << d;
      found += looked_up(s, d) >= 0;
    }
  EXPECT_GT(found, 3 * kept);  // most kept cells keep most of their neighbours
}
TYPED_TEST(GbeesGrid, PruneCompactionKeepsTheMarkedCellsInOrderAndTheirNeighbours) {
  check_prune_compaction<TypeParam>(false);
}
TYPED_TEST(GbeesGrid, PruneCompactionKeepsTheMarkedCellsInZOrderAndTheirNeighbours) {
  check_prune_compaction<TypeParam>(true);
}

// (Free functions: CUDA lambdas cannot live in a test body.)
template <class Space>
void check_compaction_after_growth() {
  Space space;
  SparseGrid<Space> grid(space, 3, 1024);
  grid.set_z_order(true);
  insert_block(grid, space, 2000);
  double removed = 0;
  compact_and_check_order(grid, space, KeepAllBut{7, 3}, removed);
  // The kept cells are in order; new cells (and cells removed before) join them at the end,
  // and the next compaction merges the two.
  insert_block(grid, space, 3000);
  compact_and_check_order(grid, space, KeepAllBut{5, 4}, removed);
  compact_and_check_order(grid, space, KeepAllBut{11, 6}, removed);  // nothing new: all in order already
}
TYPED_TEST(GbeesGrid, CompactionAfterGrowthMergesTheNewCellsIntoTheOrder) {
  check_compaction_after_growth<TypeParam>();
}

// One growth with a uniform drift (+, -), in a step of length 0 (it grows the grid and moves
// no probability): the new cells are exactly the forward-x, backward-y and (+x, -y)
// neighbours, not present before, of the cells at or above p*.
TYPED_TEST(GbeesGrid, GrowthInsertsEachNewDownwindCellOnce) {
  using Space = TypeParam;
  Space space;
  ConstantDrift drift;
  drift.n = 2;
  drift.velocity[0] = 1.0;
  drift.velocity[1] = -0.5;
  Parameters p;
  p.initial_mean = {0, 0};
  p.initial_std = {1, 1};
  p.cell_width = {0.25, 0.25};
  p.threshold = 1e-4;  // the box's corners lie below it and must not grow
  p.end_time = 1;
  Solver<Space, ConstantDrift> solver(space, drift, p);
  const HostCells before = solver.cells();
  const auto codec = solver.geometry().codec;
  std::set<std::uint64_t> old_keys(before.key.begin(), before.key.end()), expected;
  int above = 0;
  for (std::size_t c = 0; c < before.size(); ++c) {
    if (!(before.probability[c] >= p.threshold)) continue;
    ++above;
    std::uint64_t a, b, ab;
    ASSERT_TRUE(codec.shift(before.key[c], 0, 1, a) && codec.shift(before.key[c], 1, -1, b) &&
                codec.shift(a, 1, -1, ab));
    for (std::uint64_t k : {a, b, ab})
      if (!old_keys.count(k)) expected.insert(k);
  }
  ASSERT_GT(above, 0);
  ASSERT_LT(above, static_cast<int>(before.size()));
  ASSERT_EQ(solver.step(0.0), 0.0);
  const HostCells after = solver.cells();
  std::vector<std::uint64_t> all(after.key);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "a cell was inserted twice";
  std::set<std::uint64_t> added;
  for (std::size_t c = 0; c < after.size(); ++c) {
    if (old_keys.count(after.key[c])) continue;
    added.insert(after.key[c]);
    EXPECT_EQ(after.probability[c], 0.0);
  }
  EXPECT_EQ(added.size() + before.size(), after.size());
  EXPECT_EQ(added, expected);
}

// The initial grid with initial_above_threshold: the cells of the whole box at or above p*
// (once normalised), as many as initial_cell_count says, each with the box's probability
// scaled by one factor per PDF (normalised over the cells kept); for one PDF and for an
// ensemble whose means sit off the cell centres.
TYPED_TEST(GbeesGrid, InitialCellsAboveThresholdAreTheBoxsCellsAtOrAboveIt) {
  using Space = TypeParam;
  Space space;
  ConstantDrift drift;
  drift.n = 2;
  Parameters p;
  p.initial_mean = {0, 0};
  p.initial_std = {1, 0.5};
  p.cell_width = {0.25, 0.125};
  p.threshold = 1e-4;
  p.end_time = 1;
  for (const std::vector<std::vector<double>>& members :
       {std::vector<std::vector<double>>{}, {{0.1, -0.05}, {3.0, 0.4}}}) {
    p.member_means = members;
    p.initial_above_threshold = false;
    const HostCells box = Solver<Space, ConstantDrift>(space, drift, p).cells();
    p.initial_above_threshold = true;
    const HostCells kept = Solver<Space, ConstantDrift>(space, drift, p).cells();
    std::map<std::uint64_t, double> expected;
    for (std::size_t c = 0; c < box.size(); ++c)
      if (box.probability[c] >= p.threshold) expected[box.key[c]] = box.probability[c];
    ASSERT_GT(expected.size(), 0u);
    ASSERT_LT(expected.size(), box.size());
    ASSERT_EQ(kept.size(), expected.size());
    if (members.empty()) EXPECT_EQ(static_cast<double>(kept.size()), initial_cell_count(p));
    std::map<int, double> factor, total;  // per PDF
    for (std::size_t c = 0; c < kept.size(); ++c) {
      ASSERT_EQ(expected.count(kept.key[c]), 1u);
      const int member = kept.member.empty() ? 0 : kept.member[c];
      const double ratio = kept.probability[c] / expected[kept.key[c]];
      if (!factor.count(member)) factor[member] = ratio;
      EXPECT_NEAR(ratio, factor[member], 1e-12 * factor[member]);
      EXPECT_GT(ratio, 1.0);
      total[member] += kept.probability[c];
    }
    EXPECT_EQ(factor.size(), members.empty() ? 1u : members.size());
    for (const auto& [member, sum] : total) EXPECT_NEAR(sum, 1.0, 1e-12) << "PDF " << member;
  }
}

}  // namespace
