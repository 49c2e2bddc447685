#pragma once
// Timing device work: fence, warm up once, repeat, keep the median.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <vector>

namespace pk {

// Median wall time in seconds of `repeats` runs of work(), after one untimed warm-up run.
template <class Space, class Work>
double median_seconds(const Space& space, int repeats, Work&& work) {
  work();
  space.fence();
  std::vector<double> seconds;
  seconds.reserve(repeats);
  for (int r = 0; r < repeats; ++r) {
    Kokkos::Timer timer;
    work();
    space.fence();
    seconds.push_back(timer.seconds());
  }
  std::nth_element(seconds.begin(), seconds.begin() + repeats / 2, seconds.end());
  return seconds[repeats / 2];
}

}  // namespace pk
