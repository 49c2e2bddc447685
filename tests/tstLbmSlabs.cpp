// Slabs of a distributed LBM run: how layers are shared out, who neighbours whom, and the
// lattice a rank holds.
#include <pk/core/error.hpp>
#include <pk/lbm/slabs.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace pk::lbm;

// z whenever it has a layer for every rank, however long the other axes; else the longest.
TEST(LbmSlabs, AutomaticAxisIsZWhereItCanBe) {
  EXPECT_EQ(split_axis(Geometry(10, 4, 6), 3), 2);
  EXPECT_EQ(split_axis(Geometry(2048, 512, 4), 4), 2);
  EXPECT_EQ(split_axis(Geometry(10, 4, 2), 3), 0);
  EXPECT_EQ(split_axis(Geometry(3, 8, 2), 3), 1);
  EXPECT_EQ(split_axis(Geometry(5, 5, 2), 3), 1);  // ties: the later axis
  EXPECT_EQ(split_axis(Geometry(10, 4, 6), 3, SlabAxis::x), 0);
}

TEST(LbmSlabs, LayersSharedOutEvenly) {
  const Geometry g(10, 4, 6);
  const Slab first = slab_of(g, 3, 0, SlabAxis::x), middle = slab_of(g, 3, 1, SlabAxis::x),
             last = slab_of(g, 3, 2, SlabAxis::x);
  EXPECT_EQ(first.begin, 0);
  EXPECT_EQ(first.end, 4);
  EXPECT_EQ(middle.begin, 4);
  EXPECT_EQ(middle.end, 7);
  EXPECT_EQ(last.end, 10);
  EXPECT_EQ(first.low_neighbour, -1);
  EXPECT_EQ(first.high_neighbour, 1);
  EXPECT_EQ(last.high_neighbour, -1);
  EXPECT_EQ(first.local_extent(), 5);
  EXPECT_EQ(middle.local_extent(), 5);
  EXPECT_EQ(middle.first_owned(), 1);
}

TEST(LbmSlabs, PeriodicAxisWraps) {
  const Geometry g = periodic_box(4, 4, 9);
  const Slab first = slab_of(g, 3, 0), last = slab_of(g, 3, 2);
  EXPECT_EQ(first.axis, 2);
  EXPECT_EQ(first.low_neighbour, 2);
  EXPECT_EQ(last.high_neighbour, 0);
  const Slab alone = slab_of(g, 1, 0);  // its own neighbour on both sides
  EXPECT_EQ(alone.low_neighbour, 0);
  EXPECT_EQ(alone.high_neighbour, 0);
  EXPECT_EQ(alone.local_extent(), 11);
}

TEST(LbmSlabs, MoreRanksThanLayersIsRefused) {
  try {
    slab_of(Geometry(3, 2, 2), 4, 0);
    ADD_FAILURE() << "no error";
  } catch (const pk::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "4 ranks, but the lattice has only 3 layers along any axis (x has the most): use at most 3 ranks");
  }
  try {
    slab_of(Geometry(3, 2, 8), 4, 0, SlabAxis::x);
    ADD_FAILURE() << "no error";
  } catch (const pk::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "4 ranks, but the lattice has only 3 layers along x, the slab axis asked for: use at most 3 ranks");
  }
}

// Ghost layers copy the neighbours' cells (wrapping on a periodic axis), with inlet and
// outlet cells as fluid; the split axis is no longer periodic.
TEST(LbmSlabs, LocalGeometryHoldsGhostLayers) {
  Geometry g = box_channel(6, 2, 2);  // 6 x 4 x 4, inlet at x = 0, outlet at x = 5
  g.set(3, 1, 1, CellType::solid);
  const Slab upper = slab_of(g, 2, 1, SlabAxis::x);  // x = 3..5, ghost layer x = 2
  const Geometry local = local_geometry(g, upper);
  EXPECT_EQ(local.nx(), 4);
  EXPECT_EQ(local.at(0, 1, 1), CellType::fluid);
  EXPECT_EQ(local.at(1, 1, 1), CellType::solid);
  EXPECT_EQ(local.at(3, 1, 1), CellType::outlet);
  EXPECT_EQ(local.at(1, 0, 1), CellType::solid);
  local.validate();

  Geometry ring = periodic_box(2, 2, 8);
  ring.set(0, 0, 7, CellType::solid);
  const Slab first = slab_of(ring, 2, 0);
  const Geometry wrapped = local_geometry(ring, first);
  EXPECT_EQ(wrapped.nz(), 6);
  EXPECT_FALSE(wrapped.periodic(2));
  EXPECT_TRUE(wrapped.periodic(0));
  EXPECT_EQ(wrapped.at(0, 0, 0), CellType::solid);  // global z = 7
  EXPECT_EQ(wrapped.at(1, 0, 0), CellType::fluid);
}

}  // namespace
