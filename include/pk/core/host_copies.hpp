#pragma once
// Copies between the host and a space's memory through the caller's instance: Kokkos' own
// shortcuts (create_mirror_view_and_copy, deep_copy into a scalar) fence every instance of
// every space, and the mirrors they allocate are initialised on a default instance.
#include <Kokkos_Core.hpp>

#include <type_traits>

namespace pk {

// `view` itself where the host can read it, else a host copy of it (never initialised);
// copied on `space` and waited for.
// A host view of `view`'s shape: `view` itself where the host can read it, else a new one,
// never initialised (Kokkos 3.4 and 4 spell create_mirror_view's way to say so differently).
template <class View>
typename View::HostMirror host_mirror(const View& view) {
  using Mirror = typename View::HostMirror;
  if constexpr (std::is_same_v<typename View::memory_space, typename Mirror::memory_space>)
    return view;
  else
    return Mirror(Kokkos::view_alloc(Kokkos::WithoutInitializing, view.label()), view.layout());
}

template <class ExecutionSpace, class View>
auto readable_on_host(const ExecutionSpace& space, const View& view) {
  auto host = host_mirror(view);
  Kokkos::deep_copy(space, host, view);
  space.fence();
  return host;
}

// `host` itself where `space` can read it, else a copy in its memory (never initialised),
// copied on `space`: work queued on `space` after it sees the copy.
template <class ExecutionSpace, class HostView>
auto readable_on(const ExecutionSpace& space, const HostView& host) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Copy = Kokkos::View<typename HostView::data_type, typename HostView::array_layout, MemorySpace>;
  if constexpr (std::is_same_v<typename HostView::memory_space, MemorySpace>) {
    return Copy(host);
  } else {
    Copy copy(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, host.label()), host.layout());
    Kokkos::deep_copy(space, copy, host);
    return copy;
  }
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
