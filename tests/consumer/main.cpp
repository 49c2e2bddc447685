// Copies a vector on the host space through the installed PortableKernels and checks it.
#include <pk/core/copy_bandwidth.hpp>
#include <pk/core/session.hpp>
#include <pk/core/spaces.hpp>

#include <cstdio>

int main() {
  pk::Session session;
  using Space = Kokkos::DefaultHostExecutionSpace;
  const std::size_t n = 1 << 16;
  Kokkos::View<double*, Space::memory_space> x("x", n), y("y", n);
  Kokkos::parallel_for("consumer::fill", Kokkos::RangePolicy<Space>(0, n), [=](std::size_t i) { x(i) = 0.5 * i; });
  pk::copy(Space{}, x, y);
  int wrong = 0;
  Kokkos::parallel_reduce(
      "consumer::check", Kokkos::RangePolicy<Space>(0, n), [=](std::size_t i, int& w) { w += y(i) != 0.5 * i; }, wrong);
  std::printf("copied %zu doubles on %s: %s\n", n, pk::SpaceTraits<Kokkos::OpenMP>::name, wrong ? "WRONG" : "exact");
  return wrong ? 1 : 0;
}
