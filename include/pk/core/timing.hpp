#pragma once
// Timing device work: fence around it; warm up once, repeat, keep the median and the spread.
#include <pk/core/interrupt.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
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

template <class Space, class Work>
RepeatedSeconds repeated_seconds(const Space& space, int repeats, Work&& work) {
  work();
  space.fence();
  std::vector<double> seconds;
  seconds.reserve(repeats);
  for (int r = 0; r < repeats && (r == 0 || !interrupted()); ++r) seconds.push_back(fenced_seconds(space, work));
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back(), static_cast<int>(seconds.size())};
}

// The median of repeated_seconds.
template <class Space, class Work>
double median_seconds(const Space& space, int repeats, Work&& work) {
  return repeated_seconds(space, repeats, std::forward<Work>(work)).median;
}

}  // namespace pk
