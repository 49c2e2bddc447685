#pragma once
// Copies between the host and a space's memory through the caller's instance: Kokkos' own
// shortcuts (create_mirror_view_and_copy, deep_copy into a scalar) fence every instance of
// every space, and the mirrors they allocate are initialised on a default instance.
#include <Kokkos_Core.hpp>

namespace pk {

// `view` itself where the host can read it, else a host copy of it (never initialised);
// copied on `space` and waited for.
template <class ExecutionSpace, class View>
auto readable_on_host(const ExecutionSpace& space, const View& view) {
  auto host = Kokkos::create_mirror_view(Kokkos::WithoutInitializing, view);
  Kokkos::deep_copy(space, host, view);
  space.fence();
  return host;
}

// `host` itself where `space` can read it, else a copy in its memory (never initialised),
// copied on `space`: work queued on `space` after it sees the copy.
template <class ExecutionSpace, class HostView>
auto readable_on(const ExecutionSpace& space, const HostView& host) {
  auto copy = Kokkos::create_mirror_view(Kokkos::WithoutInitializing, typename ExecutionSpace::memory_space{}, host);
  Kokkos::deep_copy(space, copy, host);
  return copy;
}

// The value of a rank-0 view, copied on `space` and waited for.
template <class ExecutionSpace, class View>
typename View::non_const_value_type read_scalar(const ExecutionSpace& space, const View& view) {
  static_assert(View::rank == 0, "pk::read_scalar: a rank-0 view");
  typename View::non_const_value_type value{};
  Kokkos::deep_copy(
      space, Kokkos::View<typename View::non_const_value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&value),
      view);
  space.fence();
  return value;
}

}  // namespace pk
