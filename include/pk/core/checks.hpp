#pragma once
// Compile-time checks of what a public call is given: an execution space first, and views
// that space can reach. Each fails with a message that says what to pass instead.
#include <Kokkos_Core.hpp>

namespace pk {

// static_assert(check_arguments<ExecutionSpace, Views...>()) at the top of a public call.
template <class ExecutionSpace, class... Views>
constexpr bool check_arguments() {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "pk: the first argument of every call (and the first template argument of every solver) is a Kokkos "
                "execution space instance, e.g. Kokkos::DefaultExecutionSpace{}");
  static_assert((Kokkos::is_view<Views>::value && ...), "pk: expected a Kokkos::View");
  static_assert((Kokkos::SpaceAccessibility<ExecutionSpace, typename Views::memory_space>::accessible && ...),
                "pk: a view given to this call lives in memory its execution space cannot reach: allocate it in "
                "ExecutionSpace::memory_space, or copy it there (Kokkos::create_mirror_view_and_copy)");
  return true;
}

}  // namespace pk
