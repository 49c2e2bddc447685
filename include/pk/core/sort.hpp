#pragma once
// Sorting a view on the execution space instance the caller gives.
//
//   pk::sort(space, keys);  // keys in ascending order, queued on space
#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

namespace pk {

// Kokkos::sort on `space`; before Kokkos 4, which has no such overload, on the view's default
// instance, fenced on both sides so that it still runs in the caller's order.
template <class ExecutionSpace, class View>
void sort(const ExecutionSpace& space, const View& view) {
#if KOKKOS_VERSION >= 40000
  Kokkos::sort(space, view);
#else
  space.fence();
  Kokkos::sort(view);
  Kokkos::fence();
#endif
}

}  // namespace pk
