// Milliseconds per pass of pk::rfilter::apply_filter (K = 4, sigma 2) along x, y and z of a
// 256^3 LayoutLeft field on the default execution space: the median of 7 batches of 5 passes, as pk-bench's
// field256 cases time it, and the lines per tile the filter took (and the time taken to choose).
#include <pk/rfilter/filter.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;
  const int n = 256;
  Kokkos::View<double***, Kokkos::LayoutLeft, Space::memory_space> field("field", n, n, n);
  Kokkos::parallel_for(
      Kokkos::RangePolicy<Space>(0, long(n) * n * n), KOKKOS_LAMBDA(long i) { field.data()[i] = std::sin(0.013 * i); });
  const auto c = pk::rfilter::make_coefficients(2.0, 4);
  for (int axis = 0; axis < 3; ++axis) {
    // The tile's choice (pk::autotune's trials where there are some) and a first pass, untimed.
    const auto chosen = std::chrono::steady_clock::now();
    const int tile = pk::rfilter::tile_lines(Space(), field, axis, c);
    const double choice_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - chosen).count();
    pk::rfilter::apply_filter(Space(), field, axis, c);
    std::vector<double> seconds;
    for (int r = 0; r < 7; ++r) {
      Kokkos::fence();
      const auto start = std::chrono::steady_clock::now();
      for (int p = 0; p < 5; ++p) pk::rfilter::apply_filter(Space(), field, axis, c);
      Kokkos::fence();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 5);
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("field256-%c %.2f ms (%d lines per tile, chosen in %.2f s)\n", "xyz"[axis], seconds[3] * 1e3, tile,
                choice_seconds);
  }
}
