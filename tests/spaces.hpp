#pragma once
// Typed tests run once per execution space compiled into the build.
#include <pk/core/spaces.hpp>

#include <gtest/gtest.h>

#include <random>
#include <type_traits>

namespace pk::test {

template <class List>
struct ToTestTypes;
template <class... Spaces>
struct ToTestTypes<SpaceList<Spaces...>> {
  using type = ::testing::Types<Spaces...>;
};
using EnabledSpaceTypes = ToTestTypes<EnabledSpaces>::type;

// Tests that compare spaces skip themselves (GTEST_SKIP) where there is nothing to compare:
// a build with one space, or the host space against itself.
template <class... Spaces>
constexpr std::size_t space_count(SpaceList<Spaces...>) {
  return sizeof...(Spaces);
}
constexpr bool one_space_build = space_count(EnabledSpaces{}) == 1;
template <class Space>
constexpr bool is_host_space = std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>;
constexpr const char* nothing_to_compare = "this build holds one execution space: nothing to compare with";
constexpr const char* host_against_itself = "the host space itself: nothing to compare with";

// Name typed tests by space ("openmp", "cuda") rather than by index.
struct SpaceNames {
  template <class Space>
  static std::string GetName(int) {
    return SpaceTraits<Space>::name;
  }
};

// A host view of uniform random numbers in [lo, hi), fresh for every call.
inline Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> random_host_vector(std::size_t n, double lo = -1,
                                                                                       double hi = 1) {
  static std::mt19937_64 engine(20261123);
  std::uniform_real_distribution<double> uniform(lo, hi);
  Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::HostSpace> v("pk::test::random", n);
  for (std::size_t i = 0; i < n; ++i) v(i) = uniform(engine);
  return v;
}

// A new copy of a host view in Space's memory (a new allocation even on a host space).
template <class Space, class HostView>
auto to_space(const Space&, const HostView& host) {
  auto copy = Kokkos::create_mirror(typename Space::memory_space{}, host);
  Kokkos::deep_copy(copy, host);
  return copy;
}

}  // namespace pk::test
