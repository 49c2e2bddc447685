#pragma once
// The one place for what kernels may assume about the hardware they run on, and for the
// launch parameters chosen from it. Kernels name no device: a parameter is a backend fact
// (fixed by the architecture family, at compile time: spaces.hpp), read from the device at
// run time, or picked by pk::autotune, which times the candidates once per device and process.
#include <pk/core/device_info.hpp>
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>
#include <pk/core/timing.hpp>

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace pk {

// What kernels' launch parameters read at compile time: the backend facts of Space (its
// SpaceTraits, spaces.hpp; Backend stands in for them in tests of another backend's choices)
// and the host code's SIMD width.
template <class Space, class Backend = SpaceTraits<Space>>
struct Tuning {
  // Threads that run in lockstep (a warp or wavefront); 1 on CPUs, where SIMD lanes are the compiler's.
  static constexpr int lockstep_threads = Backend::lockstep_threads;
  // Bytes of team scratch that one cycle serves without bank conflicts (banks x width); 0 where
  // scratch has no banks.
  static constexpr int scratch_bank_bytes = Backend::scratch_bank_bytes;
  // 32-bit registers that the threads resident on one SM or CU share.
  static constexpr int registers_per_multiprocessor = Backend::registers_per_multiprocessor;
  // Launch bounds that keep TeamsPerMultiprocessor teams of TeamThreads threads resident on
  // one SM or CU: the compiler then caps each thread at registers_per_multiprocessor /
  // (TeamThreads * TeamsPerMultiprocessor) registers.
  template <int TeamThreads, int TeamsPerMultiprocessor>
  using ResidentTeams =
      Kokkos::LaunchBounds<TeamThreads, Backend::launch_bounds_blocks(TeamThreads, TeamsPerMultiprocessor)>;
  // Bytes of the widest SIMD register the host code is compiled for (PK_HOST_ARCH).
  static constexpr int simd_bytes =
#if defined(__AVX512F__)
      64;
#elif defined(__AVX__)
      32;
#else
      16;
#endif
};

namespace Details {
DeviceFacts host_facts(int threads);
std::optional<int> cached_choice(const std::string& device, const std::string& key);
void cache_choice(const std::string& device, const std::string& key, int choice);
bool autotune_enabled();
}  // namespace Details

// The facts of the device behind `space`.
template <class Space>
DeviceFacts device_facts(const Space& space) {
  if constexpr (runs_on_host<Space>)
    return Details::host_facts(space.concurrency());
  else
    return SpaceTraits<Space>::facts(space);
}

// The fastest of `candidates` (launch parameters that give the same results) for the job
// named `key` on the device behind `space`: trial(candidate) runs the job once; each is
// timed as the median of three runs after a warm-up. The choice is cached per device and
// key for the process, so later calls cost a map lookup. PK_AUTOTUNE=0 takes the first
// candidate without timing or cache, for runs that must launch the same kernels every time
// (profiling, bit-for-bit comparisons).
template <class Space, class Trial>
int autotune(const Space& space, const std::string& key, const std::vector<int>& candidates, Trial&& trial) {
  require(!candidates.empty(), "pk::autotune: no candidates for ", key);
  if (candidates.size() == 1 || !Details::autotune_enabled()) return candidates.front();
  // Cheap enough for every call: the backend and the device's ordinal, no device query.
  const std::string device =
      std::string(SpaceTraits<Space>::name) + "#" + std::to_string(SpaceTraits<Space>::device_id(space));
  if (const auto cached = Details::cached_choice(device, key)) return *cached;
  int best = candidates.front();
  double best_seconds = std::numeric_limits<double>::infinity();
  for (const int candidate : candidates) {
    const double seconds = median_seconds(space, 3, [&] { trial(candidate); });
    if (seconds < best_seconds) best_seconds = seconds, best = candidate;
  }
  Details::cache_choice(device, key, best);
  return best;
}

}  // namespace pk
