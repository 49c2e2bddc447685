#pragma once
// The FP64 probe: the rate of double-precision fused multiply-adds this build reaches on a
// space, the arithmetic limit shown beside kernels bound by arithmetic (K_nu), as the copy
// probe is the limit of kernels bound by memory.
#include <pk/core/timing.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk {

namespace Details {
// Every work item runs `chains` independent FMA chains of `steps` steps, enough to hide the
// FMA latency with the vector width of a CPU core or the warps of a GPU.
template <class Memory>
struct Fp64Chains {
  static constexpr int chains = 64;
  Kokkos::View<double*, Memory> out;
  int steps;

  KOKKOS_FUNCTION void operator()(const long i) const {
    double a[chains];
    for (int c = 0; c < chains; ++c) a[c] = 1e-3 * static_cast<double>(i % 97 + c);
    // a -> a * 0.999999 + 1e-7 stays finite and normal, and cannot be folded away. An explicit
    // fma: host code is built without contraction (src/CMakeLists.txt), where a * b + d is a
    // multiply and an add, half the rate the hardware has.
    const double b = 0.999999 + 1e-12 * static_cast<double>(i % 3), d = 1e-7;
    for (int s = 0; s < steps; ++s)
      for (int c = 0; c < chains; ++c) a[c] = ::fma(a[c], b, d);  // C99 fma: Kokkos 3.4 has no Kokkos::fma
    double sum = 0;
    for (int c = 0; c < chains; ++c) sum += a[c];
    out(i) = sum;
  }
};
}  // namespace Details

// One run of the probe is a call; gflops(seconds) is the rate of a run that took `seconds`
// (an FMA counts 2). The space's concurrency times 64 items keep every core busy, and the
// chains grow, on construction, until a run takes 20 ms: in a shorter one, starting and
// joining a CPU's threads would count against the rate, more the more threads there are.
// A bench times it in turn with the kernel it rates (pk::interleaved_seconds).
template <class Space>
class Fp64Probe {
 public:
  explicit Fp64Probe(const Space& space)
      : space_(space),
        chains_{Kokkos::View<double*, typename Space::memory_space>(Kokkos::view_alloc(space, "pk::fp64_probe::out"),
                                                                    64L * space.concurrency()),
                1024} {
    constexpr double min_seconds = 0.02;
    (*this)();  // the warm-up, once: each doubling below is then a single timed run
    while (chains_.steps < (1 << 24) && fenced_seconds(space_, *this) < min_seconds) chains_.steps *= 2;
  }

  void operator()() const {
    Kokkos::parallel_for("pk::fp64_probe", Kokkos::RangePolicy<Space>(space_, 0, chains_.out.extent(0)), chains_);
  }

  double gflops(double seconds) const {
    return 2.0 * chains_.chains * chains_.steps * static_cast<double>(chains_.out.extent(0)) / seconds * 1e-9;
  }

 private:
  Space space_;
  Details::Fp64Chains<typename Space::memory_space> chains_;
};

}  // namespace pk
