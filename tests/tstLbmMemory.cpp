// The memory a pk::lbm::Solver holds at its peak, measured in its memory space through
// Kokkos Tools' allocation callbacks while it is built, steps and reads its fields, against
// pk::lbm::memory_plan, which the programs refuse lattices by: within 10 % for every storage
// and streaming pattern.
#include "spaces.hpp"

#include <pk/core/binary16.hpp>
#include <pk/lbm/memory_plan.hpp>
#include <pk/lbm/solver.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace {

using namespace pk::lbm;

// Live and peak bytes of the Kokkos allocations in one memory space while it exists.
class AllocationPeak {
 public:
  explicit AllocationPeak(const char* memory_space) {
    state() = {memory_space, 0, 0};
    Kokkos::Tools::Experimental::set_allocate_data_callback(&allocated);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(&deallocated);
  }
  ~AllocationPeak() {
    Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
    Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  }
  AllocationPeak(const AllocationPeak&) = delete;
  AllocationPeak& operator=(const AllocationPeak&) = delete;
  double peak() const { return state().peak; }

 private:
  struct State {
    std::string space;
    double live, peak;
  };
  static State& state() {
    static State s;
    return s;
  }
  static void allocated(Kokkos::Profiling::SpaceHandle handle, const char*, const void*, std::uint64_t size) {
    if (state().space != handle.name) return;
    state().live += static_cast<double>(size);
    state().peak = std::max(state().peak, state().live);
  }
  static void deallocated(Kokkos::Profiling::SpaceHandle handle, const char*, const void*, std::uint64_t size) {
    if (state().space == handle.name) state().live -= static_cast<double>(size);
  }
};

template <class Space>
class LbmMemory : public ::testing::Test {};
TYPED_TEST_SUITE(LbmMemory, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

template <class Space, class Precision>
void expect_peak_as_planned(Streaming streaming) {
  const Geometry geometry = box_channel(64, 48, 40);
  Parameters p;
  p.streaming = streaming;
  // No autotune trials: a storage timed on the lattice may allocate it again, store trials.
  p.aa_storage = AaStorage::plain;
  p.ab_stores = AbStores::cached;
  const MemoryPlan plan = memory_plan(geometry.cell_count(), p, sizeof(Precision));
  double peak = 0;
  {
    const AllocationPeak allocations(Space::memory_space::name());
    {
      Solver<Space, Precision> solver(Space{}, geometry, p);
      solver.advance(2);
      const HostFields fields = solver.fields();
      EXPECT_EQ(fields.density.size(), static_cast<std::size_t>(geometry.cell_count()));
    }
    peak = allocations.peak();
  }
  EXPECT_NEAR(peak, plan.device, 0.1 * plan.device)
      << sizeof(Precision) << "-byte storage, " << (streaming == Streaming::ab ? "A-B" : "A-A") << ": "
      << peak / geometry.cell_count() << " bytes a cell measured, " << plan.device / geometry.cell_count()
      << " planned";
}

TYPED_TEST(LbmMemory, PeakIsAsPlannedForEveryStorage) {
  for (const Streaming streaming : {Streaming::aa, Streaming::ab}) {
    expect_peak_as_planned<TypeParam, double>(streaming);
    expect_peak_as_planned<TypeParam, float>(streaming);
    expect_peak_as_planned<TypeParam, pk::Binary16>(streaming);
  }
}

// fields() reads the moments a chunk at a time: a lattice larger than a chunk gives the
// same fields as one read whole would (every cell once, in its place).
TYPED_TEST(LbmMemory, FieldsReadInChunksCoverEveryCell) {
  const std::int64_t chunk = Details::field_chunk_cells(std::int64_t{1} << 40);
  const Geometry geometry = periodic_box(256, 128, static_cast<int>(chunk / (256 * 128)) + 3);
  ASSERT_GT(geometry.cell_count(), chunk);
  Parameters p;
  p.initial_velocity = {0.01, 0.0, 0.0};
  Solver<TypeParam, float> solver(TypeParam{}, geometry, p);
  const HostFields fields = solver.fields();
  ASSERT_EQ(fields.density.size(), static_cast<std::size_t>(geometry.cell_count()));
  // A periodic box at rest with a uniform velocity: every cell keeps its initial state.
  double worst = 0;
  for (std::size_t c = 0; c < fields.density.size(); ++c) {
    worst = std::max(worst, std::abs(fields.density[c] - 1.0));
    worst = std::max(worst, std::abs(fields.velocity[3 * c] - 0.01));
  }
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
