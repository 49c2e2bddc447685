// The LBM solver on several ranks takes the steps of one solver on the whole lattice: the
// same populations, bit for bit, for A-A and A-B, fp64 and fp32, with slabs along x, y
// and z, walls, pressure faces and periodic wrap across rank faces.
#include "../spaces.hpp"

#include <pk/lbm/distributed_solver.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace pk::lbm;

template <class Space>
class LbmDistributed : public ::testing::Test {};
TYPED_TEST_SUITE(LbmDistributed, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// A state that differs from cell to cell: density 1 +- 0.01, velocity components +- 0.03,
// from a hash of the global cell index. A cell `poisoned` gets a NaN density.
struct HashState {
  int poisoned = -1;
  double nan = std::numeric_limits<double>::quiet_NaN();  // taken on the host: device code may not call it

  KOKKOS_INLINE_FUNCTION static double uniform(std::uint32_t h) {  // [-1, 1)
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h * (2.0 / 4294967296.0) - 1.0;
  }
  KOKKOS_INLINE_FUNCTION void operator()(int cell, int, int, int, double& density, double (&velocity)[3]) const {
    const std::uint32_t c = static_cast<std::uint32_t>(cell) * 4u;
    density = cell == poisoned ? nan : 1.0 + 0.01 * uniform(c);
    for (int k = 0; k < 3; ++k) velocity[k] = 0.03 * uniform(c + 1u + k);
  }
};

// Channel along x with pressure faces, walls in y, periodic in z and a solid block: cut along x.
Geometry channel_x() {
  Geometry g(24, 7, 5, {false, false, true});
  for (int z = 0; z < g.nz(); ++z)
    for (int y = 0; y < g.ny(); ++y)
      for (int x = 0; x < g.nx(); ++x) {
        CellType t = x == 0 ? CellType::inlet : x == g.nx() - 1 ? CellType::outlet : CellType::fluid;
        if (y == 0 || y == g.ny() - 1 || (x >= 10 && x <= 13 && y >= 2 && y <= 4 && z <= 2)) t = CellType::solid;
        g.set(x, y, z, t);
      }
  return g;
}

// Periodic in x and y, walls at the z faces, a solid post across rank faces: cut along y.
Geometry posts_y() {
  Geometry g(6, 16, 5, {true, true, false});
  for (int z = 0; z < g.nz(); ++z)
    for (int y = 5; y < 12; ++y) g.set(2, y, z, CellType::solid);
  return g;
}

// Fully periodic, cut along z, with solid cells on the wrapping face.
Geometry periodic_z() {
  Geometry g = periodic_box(5, 4, 12);
  g.set(1, 1, 0, CellType::solid);
  g.set(3, 2, 11, CellType::solid);
  return g;
}

// The populations after `steps` steps from HashState, of the whole lattice on one solver
// and of this rank's slab on the distributed one, restricted to the same cells.
template <class Space, class Real, Traversal traversal = default_traversal<Space>>
void expect_same_populations(const Geometry& geometry, SlabAxis axis, Streaming streaming, int steps,
                             AaStorage storage = AaStorage::tuned, AbStores stores = AbStores::tuned) {
  const pk::mpi::Communicator world;
  Parameters p;
  p.tau = 0.6;
  p.streaming = streaming;
  p.inlet_density = 1.002;
  p.outlet_density = 0.998;
  p.check_interval = 3;
  p.aa_storage = storage;
  p.ab_stores = stores;
  Solver<Space, Real, traversal> whole(Space{}, geometry, p);
  DistributedSolver<Space, Real, traversal> distributed(world, Space{}, geometry, p, axis);
  ASSERT_EQ(distributed.slab().axis, static_cast<int>(axis));
  whole.initialize_with(HashState{});
  distributed.initialize_with(HashState{});
  for (int s = 0; s < steps; ++s) {
    whole.advance(1);
    distributed.advance(1);
    const std::vector<double> all = whole.distributions(), mine = distributed.distributions();
    const auto size = distributed.slab_size(), origin = distributed.slab_origin();
    const std::size_t cells = geometry.cell_count(), slab_cells = mine.size() / D3Q19::size;
    ASSERT_EQ(slab_cells, static_cast<std::size_t>(size[0]) * size[1] * size[2]);
    std::size_t differing = 0;
    for (int q = 0; q < D3Q19::size; ++q)
      for (std::size_t c = 0; c < slab_cells; ++c) {
        const int x = c % size[0], y = c / size[0] % size[1], z = c / size[0] / size[1];
        const double expected = all[q * cells + geometry.cell_index(origin[0] + x, origin[1] + y, origin[2] + z)];
        differing += mine[q * slab_cells + c] != expected;  // bit for bit: no tolerance
      }
    EXPECT_EQ(differing, 0u) << streaming_name(streaming) << " " << precision_name<Real> << ", step " << s + 1
                             << ", rank " << world.rank() << " of " << world.size();
  }
  EXPECT_EQ(distributed.step_count(), steps);
}

TYPED_TEST(LbmDistributed, SameAsOneRankAlongX) {
  for (Streaming s : {Streaming::aa, Streaming::ab}) {
    expect_same_populations<TypeParam, double>(channel_x(), SlabAxis::x, s, 6);
    expect_same_populations<TypeParam, float>(channel_x(), SlabAxis::x, s, 6);
  }
}

TYPED_TEST(LbmDistributed, SameAsOneRankAlongY) {
  for (Streaming s : {Streaming::aa, Streaming::ab})
    expect_same_populations<TypeParam, double>(posts_y(), SlabAxis::y, s, 5);
}

TYPED_TEST(LbmDistributed, SameAsOneRankAlongZ) {
  for (Streaming s : {Streaming::aa, Streaming::ab}) {
    expect_same_populations<TypeParam, double>(periodic_z(), SlabAxis::z, s, 5);
    expect_same_populations<TypeParam, float>(periodic_z(), SlabAxis::z, s, 5);
  }
}

// The cells traversal's two A-A storages (pk::autotune picks one per device): the halo
// exchange reads and writes whichever the rank's lattice holds.
TYPED_TEST(LbmDistributed, SameAsOneRankInPlainAndShiftedStorage) {
  for (AaStorage storage : {AaStorage::plain, AaStorage::shifted}) {
    expect_same_populations<TypeParam, float, Traversal::cells>(channel_x(), SlabAxis::x, Streaming::aa, 6, storage);
    expect_same_populations<TypeParam, pk::Binary16, Traversal::cells>(periodic_z(), SlabAxis::z, Streaming::aa, 5,
                                                                       storage);
  }
}

// fp16 A-A, cells traversal, on slabs along z of 2^19 cells a rank, walls at the y faces:
// the slabs' boxes are whole x-y planes, so the even step pairs cells and the odd step runs
// split by walls (the open cells, then the walled groups within the box), as on one lattice.
TYPED_TEST(LbmDistributed, SameAsOneRankOnWholePlanesSplitByWalls) {
  const pk::mpi::Communicator world;
  Geometry g(64, 64, 128 * world.size(), {true, false, true});
  for (int z = 0; z < g.nz(); ++z)
    for (int x = 0; x < g.nx(); ++x) g.set(x, 0, z, CellType::solid), g.set(x, g.ny() - 1, z, CellType::solid);
  Parameters p;
  p.aa_storage = AaStorage::plain;
  const DistributedSolver<TypeParam, pk::Binary16, Traversal::cells> distributed(world, TypeParam{}, g, p);
  ASSERT_TRUE(distributed.local_solver().split_by_walls());
  expect_same_populations<TypeParam, pk::Binary16, Traversal::cells>(g, SlabAxis::z, Streaming::aa, 3,
                                                                     AaStorage::plain);
}

// The other traversal (cells on CPUs: the GPUs' kernels, with fp32 A-A in shifted storage
// and its even step staged; rows on GPUs), one test per streaming pattern: each pattern's
// kernels are new to the process, and compute-sanitizer instruments a kernel at its first
// launch. A-B with each kind of stores named rather than timed: the rows traversal times them
// on the solver's own lattice, thousands of steps of one this small, which under a sanitizer
// outlast its time limit.
template <class Space>
void expect_other_traversal_same(Streaming s, AbStores stores = AbStores::tuned) {
  constexpr Traversal other = default_traversal<Space> == Traversal::rows ? Traversal::cells : Traversal::rows;
  expect_same_populations<Space, float, other>(channel_x(), SlabAxis::x, s, 6, AaStorage::tuned, stores);
  expect_same_populations<Space, float, other>(periodic_z(), SlabAxis::z, s, 5, AaStorage::tuned, stores);
  expect_same_populations<Space, double, other>(posts_y(), SlabAxis::y, s, 5, AaStorage::tuned, stores);
}
TYPED_TEST(LbmDistributed, SameAsOneRankOtherTraversalAA) { expect_other_traversal_same<TypeParam>(Streaming::aa); }
TYPED_TEST(LbmDistributed, SameAsOneRankOtherTraversalAB) {
  for (AbStores stores : {AbStores::cached, AbStores::streaming})
    expect_other_traversal_same<TypeParam>(Streaming::ab, stores);
}

// A rank's VTK piece: its slab and the next rank's first layer, as one solver has them.
TYPED_TEST(LbmDistributed, PiecesShareBoundaryLayers) {
  const pk::mpi::Communicator world;
  const std::pair<Geometry, SlabAxis> cases[] = {
      {channel_x(), SlabAxis::x}, {posts_y(), SlabAxis::y}, {periodic_z(), SlabAxis::z}};
  for (const auto& [g, axis] : cases) {
    Parameters p;
    Solver<TypeParam, double> whole(TypeParam{}, g, p);
    DistributedSolver<TypeParam, double> distributed(world, TypeParam{}, g, p, axis);
    whole.initialize_with(HashState{});
    distributed.initialize_with(HashState{});
    whole.advance(3);
    distributed.advance(3);
    const HostFields all = whole.fields(), piece = distributed.piece_fields();
    std::array<int, 3> size = distributed.slab_size();
    if (world.rank() < world.size() - 1) ++size[distributed.slab().axis];
    const auto origin = distributed.slab_origin();
    ASSERT_EQ(piece.nx * piece.ny * piece.nz, size[0] * size[1] * size[2]);
    std::size_t differing = 0;
    for (int z = 0; z < size[2]; ++z)
      for (int y = 0; y < size[1]; ++y)
        for (int x = 0; x < size[0]; ++x) {
          const std::size_t c = x + size[0] * (y + size[1] * z);
          const std::size_t expected = g.cell_index(origin[0] + x, origin[1] + y, origin[2] + z);
          differing +=
              piece.density[c] != all.density[expected] || piece.velocity[3 * c + 1] != all.velocity[3 * expected + 1];
        }
    EXPECT_EQ(differing, 0u) << "rank " << world.rank() << " of " << world.size();
  }
}

// Every rank learns of a NaN on one rank, named in global coordinates.
TYPED_TEST(LbmDistributed, UnhealthyCellStopsEveryRank) {
  const pk::mpi::Communicator world;
  const Geometry g = periodic_z();
  Parameters p;
  DistributedSolver<TypeParam, double> solver(world, TypeParam{}, g, p);
  solver.initialize_with(HashState{static_cast<int>(g.cell_index(2, 3, 11))});  // the last rank's
  std::string message;
  try {
    solver.check_health();  // before a step spreads the NaN to rank 0 across the periodic face
  } catch (const pk::mpi::AgreedError& e) {
    message = e.what();
  }
  const std::string where = "pk::lbm: at step 0, cell (2, 3, 11): density or velocity is NaN";
  EXPECT_EQ(message.substr(0, message.find(" (health")),
            world.size() == 1 ? where : "rank " + std::to_string(world.size() - 1) + ": " + where);
}

TYPED_TEST(LbmDistributed, MoreRanksThanLayersIsRefusedOnEveryRank) {
  const pk::mpi::Communicator world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const Geometry g = periodic_box(1, 1, world.size() - 1);
  std::string message;
  try {
    DistributedSolver<TypeParam, double> solver(world, TypeParam{}, g, Parameters{});
  } catch (const pk::mpi::AgreedError& e) {
    message = e.what();
  }
  const std::string layers = std::to_string(world.size() - 1);
  EXPECT_EQ(message, std::to_string(world.size()) + " ranks, but the lattice has only " + layers +
                         " layers along any axis (z has the most): use at most " + layers + " ranks");
}

}  // namespace
