#pragma once
// The FP64 probe: the rate of double-precision fused multiply-adds this build reaches on a
// space, the arithmetic limit shown beside kernels bound by arithmetic (K_nu), as the copy
// probe is the limit of kernels bound by memory.
#include <pk/core/timing.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk {

// GFLOP/s (an FMA counts 2) of `repeats` runs, the median: every work item runs `chains`
// independent FMA chains, enough to hide the FMA latency with the vector width of a CPU core
// or the warps of a GPU; the space's concurrency times 64 items keep every core busy. The
// chains grow until a run takes 20 ms: in a shorter one, starting and joining a CPU's threads
// would count against the rate, more the more threads there are.
template <class Space>
double measure_fp64_peak_gflops(const Space& space, int repeats) {
  constexpr int chains = 64;
  constexpr double min_seconds = 0.02;
  const long items = 64L * space.concurrency();
  Kokkos::View<double*, typename Space::memory_space> out(Kokkos::view_alloc(space, "pk::fp64_probe::out"), items);
  int steps = 1024;
  const auto run = [&] {
    Kokkos::parallel_for(
        "pk::fp64_probe", Kokkos::RangePolicy<Space>(space, 0, items), KOKKOS_LAMBDA(const long i) {
          double a[chains];
          for (int c = 0; c < chains; ++c) a[c] = 1e-3 * static_cast<double>(i % 97 + c);
          // a -> a * 0.999999 + 1e-7 stays finite and normal, and cannot be folded away. An
          // explicit fma: host code is built without contraction (src/CMakeLists.txt), where
          // a * b + d is a multiply and an add, half the rate the hardware has.
          const double b = 0.999999 + 1e-12 * static_cast<double>(i % 3), d = 1e-7;
          for (int s = 0; s < steps; ++s)
            for (int c = 0; c < chains; ++c) a[c] = ::fma(a[c], b, d);  // C99 fma: Kokkos 3.4 has no Kokkos::fma
          double sum = 0;
          for (int c = 0; c < chains; ++c) sum += a[c];
          out(i) = sum;
        });
  };
  run();  // the warm-up, once: each doubling below is then a single timed run
  while (steps < (1 << 24) && fenced_seconds(space, run) < min_seconds) steps *= 2;
  const double seconds = median_seconds(space, repeats, run);
  return 2.0 * chains * steps * static_cast<double>(items) / seconds * 1e-9;
}

}  // namespace pk
