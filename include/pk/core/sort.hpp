#pragma once
// Sorting a view on the execution space instance the caller gives, in parallel on every space
// and without allocating: Kokkos::sort is one thread's std::sort on host spaces, and on CUDA
// thrust allocates its temporaries at every call.
//
//   pk::merge_sort(space, keys, scratch);  // keys ascending (stable); scratch as long as keys
#include <pk/core/details/merge_sort.hpp>
#include <pk/core/error.hpp>

#include <cstdint>
#include <utility>

namespace pk {

// Bottom-up merges of runs 1, 2, 4, ... long, one parallel pass each, queued on `space`.
template <class ExecutionSpace, class Keys, class Scratch>
void merge_sort(const ExecutionSpace& space, const Keys& keys, const Scratch& scratch) {
  const int n = static_cast<int>(keys.extent(0));
  if (static_cast<int>(scratch.extent(0)) < n)
    throw InternalError("pk::merge_sort: the scratch is shorter than the keys");
  const auto spare = Kokkos::subview(scratch, std::make_pair(0, n));
  bool in_keys = true;
  for (std::int64_t width = 1; width < n; width *= 2, in_keys = !in_keys) {  // 64 bits: 2^30 doubled
    if (in_keys)
      Details::merge_runs(space, width, keys, spare);
    else
      Details::merge_runs(space, width, spare, keys);
  }
  if (!in_keys) Kokkos::deep_copy(space, keys, spare);
}

}  // namespace pk
