// Nanoseconds a point of pk::besselk::bessel_k_all on the default host execution space, per
// path: points drawn as pk-bench's (nu uniform in [0.05, 5], x log-uniform) but each set within
// one path's range of x (Temme's series x <= 1, the integral 1 < x < 25, Hankel's expansion
// x >= 25), so that a change to one path shows in its own figure. The best of 5 passes over
// 2^20 points, and a checksum of every 997th value: builds that keep every point's bits print
// the same checksum.
#include <pk/besselk/besselk.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using Space = Kokkos::DefaultHostExecutionSpace;
  using Points = Kokkos::View<double*, Space::memory_space>;
  const long n = 1 << 20;
  struct Range {
    const char* path;
    double low, high;
  };
  for (const Range range :
       {Range{"series", 1e-3, 1.0}, Range{"integral", 1.0001, 24.99}, Range{"asymptotic", 25, 100}}) {
    Points nu("nu", n), x("x", n), k("k", n);
    std::mt19937_64 random(7);
    std::uniform_real_distribution<double> uniform(0, 1);
    for (long i = 0; i < n; ++i) {
      nu(i) = 0.05 + 4.95 * uniform(random);
      x(i) = range.low * std::pow(range.high / range.low, uniform(random));
    }
    double best = HUGE_VAL;
    for (int pass = 0; pass < 5; ++pass) {
      const auto start = std::chrono::steady_clock::now();
      pk::besselk::bessel_k_all(Space(), nu, x, k);
      Kokkos::fence();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    double checksum = 0;
    for (long i = 0; i < n; i += 997) checksum += k(i);
    std::printf("%-10s %6.1f ns a point on %d threads (checksum %.17g)\n", range.path, best / n * 1e9,
                Space().concurrency(), checksum);
  }
}
