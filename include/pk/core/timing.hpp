#pragma once
// Timing device work: fence around it; warm up once, repeat, keep the median.
#include <pk/core/interrupt.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
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

// Median wall time in seconds of `repeats` runs of work(), after one untimed warm-up run;
// of the runs done when SIGINT or SIGTERM arrives (at least one: pk-bench then stops,
// marking what it measured interrupted).
template <class Space, class Work>
double median_seconds(const Space& space, int repeats, Work&& work) {
  work();
  space.fence();
  std::vector<double> seconds;
  seconds.reserve(repeats);
  for (int r = 0; r < repeats && (r == 0 || !interrupted()); ++r) seconds.push_back(fenced_seconds(space, work));
  const std::size_t middle = seconds.size() / 2;
  std::nth_element(seconds.begin(), seconds.begin() + middle, seconds.end());
  return seconds[middle];
}

}  // namespace pk
