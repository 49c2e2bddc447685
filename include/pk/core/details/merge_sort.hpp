#pragma once
// The passes of pk::merge_sort (core/sort.hpp).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::Details {

// The first position in [begin, end) of the ascending `run` whose entry is not below `key`
// (with `after_equal`, not at or below it): where `key` goes among them.
template <class Run, class Key>
KOKKOS_INLINE_FUNCTION int place_in(const Run& run, int begin, int end, const Key& key, bool after_equal) {
  while (begin < end) {
    const int middle = begin + (end - begin) / 2;
    if (run(middle) < key || (after_equal && !(key < run(middle))))
      begin = middle + 1;
    else
      end = middle;
  }
  return begin;
}

// One pass: each pair of neighbouring ascending runs of `from`, `width` entries each (the last
// may be shorter), merged into `to`. An entry's place is its rank in its own run plus the
// entries of the other run that go before it (ties: the left run's first, so the sort is stable).
template <class ExecutionSpace, class From, class To>
void merge_runs(const ExecutionSpace& space, std::int64_t width, const From& from, const To& to) {
  const int n = static_cast<int>(from.extent(0));
  Kokkos::parallel_for(
      "pk::core::merge_sort::merge_runs", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), KOKKOS_LAMBDA(const int i) {
        const std::int64_t pair = 2 * width, start = i - i % pair;
        const int left = static_cast<int>(start);
        const int middle = static_cast<int>(start + width < n ? start + width : n);
        const int right = static_cast<int>(start + pair < n ? start + pair : n);
        const bool in_left = i < middle;
        const int others = in_left ? place_in(from, middle, right, from(i), false) - middle
                                   : place_in(from, left, middle, from(i), true) - left;
        to(left + (in_left ? i - left : i - middle) + others) = from(i);
      });
}

}  // namespace pk::Details
