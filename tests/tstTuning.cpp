#include "spaces.hpp"

#include <pk/core/tuning.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/rfilter/details/staged_tiles.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

template <class Space>
class TuningTest : public ::testing::Test {};
TYPED_TEST_SUITE(TuningTest, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(TuningTest, DeviceFactsDescribeTheDevice) {
  const pk::DeviceFacts facts = pk::device_facts(TypeParam{});
  EXPECT_FALSE(facts.name.empty());
  EXPECT_GT(facts.multiprocessors, 0);
  if constexpr (!pk::runs_on_host<TypeParam>) {
    EXPECT_GE(facts.team_scratch_bytes, 48 * 1024);  // every CUDA GPU offers 48 KiB per block, CDNA 64 KiB
    EXPECT_GE(facts.multiprocessor_scratch_bytes, facts.team_scratch_bytes);
    EXPECT_GT(facts.registers_per_multiprocessor, 0);
    // The backend facts that kernels are compiled with are the device's and Kokkos' own.
    EXPECT_EQ(facts.lockstep_threads, pk::Tuning<TypeParam>::lockstep_threads);
    EXPECT_EQ(Kokkos::TeamPolicy<TypeParam>::vector_length_max(), pk::Tuning<TypeParam>::lockstep_threads);
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
  EXPECT_EQ(trials, 3 * (1 + pk::autotune_rounds));  // a warm-up and the timed rounds per candidate
  const int again = pk::autotune(space, key, {16, 1, 4}, [&](int) { ADD_FAILURE() << "ran a trial for a cached key"; });
  EXPECT_EQ(again, 1);
}

TYPED_TEST(TuningTest, AutotuneKeepsItsChoiceInTheTuningCache) {
  const std::string folder = ::testing::TempDir() + "pk-tuning-" + pk::SpaceTraits<TypeParam>::name;
  ::setenv("PK_TUNING_CACHE", folder.c_str(), 1);
  const TypeParam space;
  Kokkos::View<double*, typename TypeParam::memory_space> out("pk::test::busy_out", 1 << 14);
  const std::string key = std::string("test.kept.") + pk::SpaceTraits<TypeParam>::name;
  const int choice = pk::autotune(space, key, {4, 1}, [&](int units) { busy(space, out, units); });
  const std::vector<pk::StoredChoice> stored = pk::stored_choices();
  ::setenv("PK_TUNING_CACHE", "off", 1);
  const auto kept = std::find_if(stored.begin(), stored.end(), [&](const auto& c) { return c.key == key; });
  ASSERT_NE(kept, stored.end());
  EXPECT_EQ(kept->choice, choice);
  EXPECT_EQ(kept->device, pk::Details::device_key(pk::SpaceTraits<TypeParam>::name, pk::device_facts(space)));
  EXPECT_NE(kept->evidence.find("1: "), std::string::npos) << kept->evidence;  // both candidates' timings
  EXPECT_NE(kept->evidence.find("4: "), std::string::npos) << kept->evidence;
}

TYPED_TEST(TuningTest, AutotuneOffTakesTheFirstCandidate) {
  ::setenv("PK_AUTOTUNE", "0", 1);
  const std::string key = std::string("test.off.") + pk::SpaceTraits<TypeParam>::name;
  const int choice = pk::autotune(TypeParam{}, key, {7, 3}, [&](int) { ADD_FAILURE() << "timed with PK_AUTOTUNE=0"; });
  ::unsetenv("PK_AUTOTUNE");
  EXPECT_EQ(choice, 7);
}

TYPED_TEST(TuningTest, AutotuneUnaffordableTakesTheDefaultUntimed) {
  const std::string key = std::string("test.unaffordable.") + pk::SpaceTraits<TypeParam>::name;
  const int choice = pk::autotune(
      TypeParam{}, key, {5, 2}, [&](int) { ADD_FAILURE() << "timed a run too short to pay for it"; }, false);
  EXPECT_EQ(choice, 5);
}

// The default stays unless every trial of another candidate but its slowest beats the
// default's fastest.
TEST(AutotuneDecision, KeepsTheDefaultWithinTheSpread) {
  using T = pk::CandidateTiming;
  EXPECT_EQ(pk::Details::decide({T{1, 1.00, 0.95, 1.10, 1.05}, T{0, 0.96, 0.90, 0.99, 0.97}}), 1);  // a tie
  EXPECT_EQ(pk::Details::decide({T{1, 1.00, 0.95, 1.10, 1.05}, T{0, 0.90, 0.88, 0.94, 0.93}}), 0);  // clear of it
  EXPECT_EQ(pk::Details::decide({T{8, 1.0, 1.0, 1.0, 1.0}, T{10, 0.8, 0.7, 0.9, 0.85}, T{12, 0.6, 0.5, 0.99, 0.98}}),
            12);
  EXPECT_EQ(pk::Details::decide({T{8, 1.0, 1.0, 1.0, 1.0}, T{10, 0.8, 0.7, 0.9, 0.85}, T{12, 0.6, 0.5, 1.01, 1.005}}),
            10);
}

// One slow trial of a clearly faster candidate (the Zen 5's A-B stores at 256^3 on 2026-12-06:
// streaming 0.099-0.103 s but one 0.140, cached 0.135-0.142) does not make a tie.
TEST(AutotuneDecision, OneSlowTrialDoesNotHideAClearDifference) {
  using T = pk::CandidateTiming;
  EXPECT_EQ(pk::Details::decide({T{0, 0.1384, 0.1348, 0.1417, 0.1400}, T{1, 0.1019, 0.0994, 0.1404, 0.1029}}), 1);
  EXPECT_EQ(pk::Details::decide({T{0, 0.1384, 0.1348, 0.1417, 0.1400}, T{1, 0.1019, 0.0994, 0.1404, 0.1360}}), 0);
}

TEST(AutotuneDecision, SummarizesTheRounds) {
  const pk::CandidateTiming t = pk::Details::summarize(3, {0.4, 0.1, 0.3, 0.2, 0.5});
  EXPECT_EQ(t.candidate, 3);
  EXPECT_DOUBLE_EQ(t.median, 0.3);
  EXPECT_DOUBLE_EQ(t.min, 0.1);
  EXPECT_DOUBLE_EQ(t.max, 0.5);
  EXPECT_DOUBLE_EQ(t.below_max, 0.4);
  EXPECT_DOUBLE_EQ(pk::Details::summarize(1, {0.7}).below_max, 0.7);
}

TEST(TuningCache, FolderFollowsTheEnvironment) {
  ::setenv("PK_TUNING_CACHE", "/some/where", 1);
  EXPECT_EQ(pk::tuning_cache_folder(), "/some/where");
  ::setenv("PK_TUNING_CACHE", "off", 1);
  EXPECT_EQ(pk::tuning_cache_folder(), "");
  ::unsetenv("PK_TUNING_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(pk::tuning_cache_folder(), "/xdg/portablekernels/tuning");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("PK_TUNING_CACHE", "off", 1);  // what test_main sets: the tests keep no choices
}

TYPED_TEST(TuningTest, AutotuneRefusesNoCandidates) {
  EXPECT_THROW(pk::autotune(TypeParam{}, "test.none", {}, [](int) {}), pk::Error);
}

// Launch choices for every backend's facts, whether or not this build holds the backend:
// the kernels' constants as a CUDA or a CDNA (64-lane wavefront) build compiles them.
using Host = Kokkos::DefaultHostExecutionSpace;
using CudaTuning = pk::Tuning<Host, pk::Details::NvidiaFacts>;
using CdnaTuning = pk::Tuning<Host, pk::Details::CdnaFacts>;

// LaunchBounds<T, M> keeps teams of T threads resident M to a multiprocessor: on CUDA M is
// the blocks per SM; on CDNA the wavefronts per SIMD, 4 SIMDs to a CU.
TEST(LaunchChoices, LbmTeamsStayResidentOnEveryBackend) {
  using CudaLaunch = pk::lbm::Details::Launch<Host, CudaTuning>;
  using CdnaLaunch = pk::lbm::Details::Launch<Host, CdnaTuning>;
  EXPECT_EQ(CudaLaunch::Bounds::maxTperB, 128u);
  EXPECT_EQ(CudaLaunch::Bounds::minBperSM, 8u);  // 8 teams of 128 threads per SM
  EXPECT_EQ(CudaLaunch::registers_per_thread, 64);
  EXPECT_EQ(CdnaLaunch::Bounds::maxTperB, 128u);
  // 8 teams of 2 wavefronts on 4 SIMDs: 4 wavefronts per SIMD, 512 / 4 registers each.
  EXPECT_EQ(CdnaLaunch::Bounds::minBperSM, 4u);
  EXPECT_EQ(CdnaLaunch::registers_per_thread, 512 / 4);
  EXPECT_EQ(CdnaLaunch::team_threads % CdnaTuning::lockstep_threads, 0);
}

TEST(LaunchChoices, RfilterTeamsStayResidentOnEveryBackend) {
  namespace rf = pk::rfilter::Details;
  using CudaStaged = rf::GpuTeams<Host, rf::staged_teams_per_multiprocessor, CudaTuning>::launch_bounds;
  using CdnaStaged = rf::GpuTeams<Host, rf::staged_teams_per_multiprocessor, CdnaTuning>::launch_bounds;
  using CdnaRegisters = rf::GpuTeams<Host, rf::register_teams_per_multiprocessor, CdnaTuning>::launch_bounds;
  EXPECT_EQ(CudaStaged::maxTperB, 256u);
  EXPECT_EQ(CudaStaged::minBperSM, 3u);
  // Teams of 256 threads are 4 wavefronts, one per SIMD: wavefronts per SIMD = teams per CU.
  EXPECT_EQ(CdnaStaged::maxTperB, 256u);
  EXPECT_EQ(CdnaStaged::minBperSM, 3u);
  EXPECT_EQ(CdnaRegisters::minBperSM, 4u);
  // A team that is not whole wavefronts still takes whole wavefronts' places.
  EXPECT_EQ(pk::Details::CdnaFacts::launch_bounds_blocks(96, 8), 4);   // 8 teams of 2 wavefronts
  EXPECT_EQ(pk::Details::CdnaFacts::launch_bounds_blocks(256, 1), 1);  // rounded up
}

// A thread's team rank, for TeamSweeps' layout of threads over pieces and lines.
struct RankOnly {
  int rank;
  KOKKOS_INLINE_FUNCTION int team_rank() const { return rank; }
};

// Staged tiles (rfilter/details/staged_tiles.hpp) put the entries that the sweeps read at
// once on distinct scratch banks: of every bank_row threads that one cycle serves (doubles
// over banks x width bytes), none shares a bank with another at a different address. The
// same for the pieces' ends (TeamSweeps). Lanes of a wavefront are such groups in turn.
template <class Facts>
void check_staged_tiles_avoid_bank_conflicts() {
  namespace rf = pk::rfilter::Details;
  using Sweeps = rf::TeamSweeps<RankOnly>;
  constexpr int bank = rf::bank_row<Host, Facts>, piece = Sweeps::piece_size;
  static_assert(Facts::lockstep_threads % bank == 0, "a warp or wavefront is whole groups");
  const auto weights = Sweeps::weights(0.5, 0.5);
  int groups = 0;
  for (const int n : {16, 40, 100, 256, 1000, 4000})
    for (int tile = 1; tile <= rf::max_tile_lines && tile * Sweeps::pieces(n) <= rf::max_team_threads; tile *= 2) {
      const int row = rf::staged_row<Host, Facts>(n, Sweeps::pieces(n), tile);
      const int threads = tile * Sweeps::pieces(n), ends_row = Sweeps::ends_row(n);
      for (int first = 0; first < threads; first += bank, ++groups) {
        for (int step = 0; step < std::max(piece, Sweeps::pieces(n)); ++step) {
          std::map<int, int> tile_banks, ends_banks;  // bank -> address
          for (int r = first; r < first + bank && r < threads; ++r) {
            const RankOnly member{r};
            const Sweeps sweeps(member, nullptr, n, tile, tile, weights);
            const int j = sweeps.piece() * piece + step;  // the sweeps' load and store of entry `step`
            if (step < piece && j < n) {
              const int at = sweeps.line() * row + j + j / piece;
              const auto [it, fresh] = tile_banks.emplace(at % bank, at);
              EXPECT_TRUE(fresh || it->second == at) << "tile: n " << n << " tile " << tile << " lanes " << first;
            }
            if (step < Sweeps::pieces(n)) {  // every thread of a line reads the ends before its piece
              const int at = sweeps.line() * ends_row + step;
              const auto [it, fresh] = ends_banks.emplace(at % bank, at);
              EXPECT_TRUE(fresh || it->second == at) << "ends: n " << n << " tile " << tile << " lanes " << first;
            }
          }
        }
      }
    }
  EXPECT_GT(groups, 0);
}

TEST(LaunchChoices, StagedTilesAvoidBankConflictsOnCuda) { check_staged_tiles_avoid_bank_conflicts<CudaTuning>(); }
TEST(LaunchChoices, StagedTilesAvoidBankConflictsOnCdna) { check_staged_tiles_avoid_bank_conflicts<CdnaTuning>(); }

// The tile chosen for a team's scratch (tile_lines_within) fits it, as the kernels allocate
// it: CUDA's 48 KiB without opting in and the H100's 227 KiB; CDNA's 64 KiB LDS, of which
// Kokkos 4.6.01 keeps 8216 bytes for its team reductions.
template <class Facts>
void check_tiles_fit(long budget) {
  namespace rf = pk::rfilter::Details;
  using Sweeps = rf::SpaceSweeps<Host>;
  int fitted = 0;
  for (int n = 1; n <= 5000; n += n < 300 ? 1 : 37)
    for (const bool contiguous : {true, false}) {
      const int tile = rf::tile_lines_within<Host, Facts>(budget, n, contiguous);
      if (tile == 0) {
        EXPECT_TRUE(Sweeps::pieces(n) > rf::max_team_threads || contiguous) << "n " << n;
        continue;
      }
      ++fitted;
      EXPECT_EQ(tile & (tile - 1), 0) << "n " << n;
      EXPECT_LE(tile, rf::max_tile_lines);
      EXPECT_LE(tile * Sweeps::pieces(n), rf::max_team_threads) << "n " << n;
      const size_t bytes = contiguous ? rf::staged_scratch_bytes<Host, Facts>(n, tile)
                                      : rf::ScratchView<Host>::shmem_size(size_t(Sweeps::ends_size(n, tile)));
      EXPECT_LE(bytes, static_cast<size_t>(budget)) << "n " << n << " tile " << tile << " contiguous " << contiguous;
    }
  EXPECT_GT(fitted, 0);
}

TEST(LaunchChoices, TilesFitTheTeamScratch) {
  check_tiles_fit<CudaTuning>(48 * 1024);
  check_tiles_fit<CudaTuning>(227 * 1024);
  check_tiles_fit<CdnaTuning>(64 * 1024 - 8216);
  // Lines of 4096 entries: 256 pieces, one line to a team of 256 threads, staged in CDNA's LDS.
  EXPECT_EQ((pk::rfilter::Details::tile_lines_within<Host, CdnaTuning>(64 * 1024 - 8216, 4096, true)), 1);
}

}  // namespace
