#pragma once
// Timing device work: fence around it; warm up once, repeat, keep the median and the spread.
#include <pk/core/interrupt.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace pk {

// Wall time in seconds of work() and of what it queues on `space` (fenced before, so that
// earlier work is not counted, and after).
template <class Space, class Work>
double fenced_seconds(const Space& space, Work&& work) {
  space.fence();
  Kokkos::Timer timer;
  work();
  space.fence();
  return timer.seconds();
}

// The median, fastest and slowest wall time in seconds of `repeats` runs of work(), after one
// untimed warm-up run; of the runs done when SIGINT or SIGTERM arrives (at least one:
// pk-bench then stops, marking what it measured interrupted).
struct RepeatedSeconds {
  double median = 0, min = 0, max = 0;
  int repeats = 0;
  // (slowest - fastest) / median: how far one run of the figure could be from another.
  double spread() const { return median > 0 ? (max - min) / median : 0; }
};

namespace Details {
inline RepeatedSeconds summary(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back(), static_cast<int>(seconds.size())};
}
}  // namespace Details

// repeated_seconds of several works, their runs interleaved: each round runs every work once,
// in turn, so that a kernel and the limit it is rated against see the same states of the
// machine (its clocks, its neighbours' load) rather than one after the other.
template <class Space, class... Works>
std::array<RepeatedSeconds, sizeof...(Works)> interleaved_seconds(const Space& space, int repeats, Works&&... works) {
  (works(), ...);
  space.fence();
  std::array<std::vector<double>, sizeof...(Works)> seconds;
  for (int r = 0; r < repeats && (r == 0 || !interrupted()); ++r) {
    std::size_t i = 0;
    (seconds[i++].push_back(fenced_seconds(space, works)), ...);
  }
  std::array<RepeatedSeconds, sizeof...(Works)> result;
  for (std::size_t i = 0; i < result.size(); ++i) result[i] = Details::summary(std::move(seconds[i]));
  return result;
}

template <class Space, class Work>
RepeatedSeconds repeated_seconds(const Space& space, int repeats, Work&& work) {
  return interleaved_seconds(space, repeats, std::forward<Work>(work))[0];
}

// The median of repeated_seconds.
template <class Space, class Work>
double median_seconds(const Space& space, int repeats, Work&& work) {
  return repeated_seconds(space, repeats, std::forward<Work>(work)).median;
}

}  // namespace pk
