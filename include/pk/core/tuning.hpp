#pragma once
// The one place for what kernels may assume about the hardware they run on, and for the
// launch parameters chosen from it. Kernels name no device: a parameter is a backend fact
// (fixed by the architecture family, at compile time: spaces.hpp), read from the device at
// run time, or picked by pk::autotune, which times the candidates once per device model and
// build, and keeps its choices in a cache folder.
#include <pk/core/device_info.hpp>
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>
#include <pk/core/timing.hpp>

#include <optional>
#include <string>
#include <utility>
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

// How one candidate's trials ran over pk::autotune's timed rounds, in seconds; below_max is
// the slowest trial but one (the slowest of a single trial).
struct CandidateTiming {
  int candidate = 0;
  double median = 0, min = 0, max = 0, below_max = 0;
};

// Rounds of trials pk::autotune times after its warm-up, every candidate once a round.
constexpr int autotune_rounds = 5;

// Trials pk::autotune has run in this process (warm-ups included): what a caller tells its
// user, and how tests see that a choice came from the tuning cache.
long autotune_trials();

// One choice kept in the tuning cache: the device, the key, the choice and its timings.
struct StoredChoice {
  std::string device;
  std::string key;
  int choice = 0;
  std::string evidence;  // each candidate's median, min and max seconds
  std::string date;
};

// The tuning cache's folder: PK_TUNING_CACHE, else $XDG_CACHE_HOME/portablekernels/tuning,
// else ~/.cache/portablekernels/tuning; empty when PK_TUNING_CACHE is "off" (or "0") or no
// home is known, and then choices last for the process only.
std::string tuning_cache_folder();

// The choices in the tuning cache made by this build (the commit, Kokkos and the host's SIMD
// width), in file order.
std::vector<StoredChoice> stored_choices();

namespace Details {
DeviceFacts host_facts(int threads);
std::optional<int> cached_choice(const std::string& instance, const std::string& key);
void cache_choice(const std::string& instance, const std::string& key, int choice);
std::optional<int> stored_choice(const std::string& device, const std::string& key);
void store_choice(const std::string& device, const std::string& key, int choice,
                  const std::vector<CandidateTiming>& timings);
std::string device_key(const std::string& backend, const DeviceFacts& facts);
int decide(const std::vector<CandidateTiming>& timings);
CandidateTiming summarize(int candidate, std::vector<double> seconds);
void count_trial();
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

// The choice among `candidates` (launch parameters that give the same results) for the job
// named `key` on the device behind `space`; the first candidate is the default.
// trial(candidate) runs the job once. Each candidate runs once untimed, then
// autotune_rounds rounds time every candidate in turn, so that a drift of clocks or load
// falls on all alike. The default stays unless every trial of another candidate but its
// slowest beats the default's fastest: a difference within the spread of the timings is noise,
// not a reason, and one trial a neighbour's burst slowed does not hide a clear difference.
// The choice is kept for the process and in the tuning cache (tuning_cache_folder()), per
// device model and build, so later calls and later processes on the machine run no trial.
// A caller whose run is too short to pay for the trials passes affordable = false: a choice
// already made is taken, else the first candidate, untimed and not kept. PK_AUTOTUNE=0 takes
// the first candidate without timing or cache, for runs that must launch the same kernels
// every time (profiling, bit-for-bit comparisons).
template <class Space, class Trial>
int autotune(const Space& space, const std::string& key, const std::vector<int>& candidates, Trial&& trial,
             bool affordable = true) {
  require(!candidates.empty(), "pk::autotune: no candidates for ", key);
  if (candidates.size() == 1 || !Details::autotune_enabled()) return candidates.front();
  // Cheap enough for every call: the backend and the device's ordinal, no device query.
  const std::string instance =
      std::string(SpaceTraits<Space>::name) + "#" + std::to_string(SpaceTraits<Space>::device_id(space));
  if (const auto cached = Details::cached_choice(instance, key)) return *cached;
  const std::string device = Details::device_key(SpaceTraits<Space>::name, device_facts(space));
  if (const auto stored = Details::stored_choice(device, key)) {
    Details::cache_choice(instance, key, *stored);
    return *stored;
  }
  if (!affordable) return candidates.front();
  const auto run = [&](int candidate) {
    Details::count_trial();
    return fenced_seconds(space, [&] { trial(candidate); });
  };
  for (const int candidate : candidates) run(candidate);
  std::vector<std::vector<double>> seconds(candidates.size());
  for (int round = 0; round < autotune_rounds; ++round)
    for (std::size_t i = 0; i < candidates.size(); ++i) seconds[i].push_back(run(candidates[i]));
  std::vector<CandidateTiming> timings;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    timings.push_back(Details::summarize(candidates[i], std::move(seconds[i])));
  const int choice = Details::decide(timings);
  Details::cache_choice(instance, key, choice);
  Details::store_choice(device, key, choice, timings);
  return choice;
}

}  // namespace pk
