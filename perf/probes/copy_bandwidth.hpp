#pragma once
// The copy-bandwidth probe: the memory-bandwidth limit that every memory-bound kernel is
// measured against, taken on the same space in the same run (a copy to another array, Kokkos'
// deep_copy, and an update in place).
#include <pk/core/error.hpp>
#include <pk/core/timing.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <utility>

namespace pk {

struct CopyBandwidth {
  std::size_t bytes_per_copy = 0;  // bytes read + bytes written by one copy
  double range_policy_gbs = 0;     // y(i) = x(i) through a RangePolicy parallel_for
  double deep_copy_gbs = 0;        // Kokkos::deep_copy of the same views
  // x(i) = f(x(i)) over both views, 16 streams at once: read and written in place, as A-A
  // lattices and in-place filters are. A CPU's ordinary store reads the line it writes first,
  // which a copy to another array pays (a third more traffic than it counts) and an update in
  // place does not.
  double in_place_gbs = 0;
  // The best of them: the limit a streaming kernel can approach.
  double limit_gbs() const { return std::max({range_policy_gbs, deep_copy_gbs, in_place_gbs}); }
};

// y(i) = x(i) for every i, as a plain RangePolicy kernel.
template <class Space>
void copy(const Space& space, Kokkos::View<const double*, typename Space::memory_space> x,
          Kokkos::View<double*, typename Space::memory_space> y) {
  require(x.extent(0) == y.extent(0), "pk::copy: source and destination sizes differ");
  Kokkos::parallel_for(
      "pk::copy", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { y(i) = x(i); });
}

// The probe's two arrays of `n` doubles and its three ways through them, each queueing
// `copies` copies back to back, alternating direction, as a kernel queues its steps: a short
// copy then pays one launch wait per batch, not per copy.
template <class Space>
struct CopyProbe {
  using Memory = typename Space::memory_space;
  Space space;
  int copies;
  Kokkos::View<double*, Memory> x, y;

  CopyProbe(const Space& space_, std::size_t n, int copies_)
      : space(space_),
        copies(copies_),
        x(Kokkos::view_alloc(space_, "pk::copy_probe::x"), n),
        y(Kokkos::view_alloc(space_, "pk::copy_probe::y"), n) {
    fill();
  }
  void fill() const {  // a device lambda's enclosing function cannot be a constructor
    const auto x_ = x, y_ = y;
    Kokkos::parallel_for(
        "pk::copy_probe::fill", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)),
        KOKKOS_LAMBDA(const std::size_t i) { x_(i) = y_(i) = 1.0 + 1e-9 * static_cast<double>(i); });
  }
  void range_policy() const {
    for (int c = 0; c < copies; ++c) c % 2 ? copy<Space>(space, y, x) : copy<Space>(space, x, y);
  }
  void deep_copy() const {
    for (int c = 0; c < copies; ++c) c % 2 ? Kokkos::deep_copy(space, x, y) : Kokkos::deep_copy(space, y, x);
  }
  // Both views in place, each element read and written once: twice a copy's bytes, in 16
  // streams at once (8 segments of each view), as kernels that read many arrays (a lattice's 19
  // directions) have them: a CPU core's bandwidth grows with the streams it keeps in flight,
  // beyond a copy's two. The map x -> x / 2 + 1 / 4 keeps every value near 1/2, however often.
  // Segments start whole cache lines apart but not a power of two apart: 16 streams whose
  // addresses differ by a large power of two would fall into the same cache sets.
  void in_place() const {
    constexpr std::size_t segments = 8;
    const std::size_t n = x.extent(0), m = ((n + segments - 1) / segments + 7) / 8 * 8 + 8 * 9;
    const auto x_ = x, y_ = y;
    for (int c = 0; c < copies; ++c)
      Kokkos::parallel_for(
          "pk::copy_probe::in_place", Kokkos::RangePolicy<Space>(space, 0, m), KOKKOS_LAMBDA(const std::size_t j) {
            for (std::size_t s = 0; s < segments; ++s)
              if (s * m + j < n) {
                x_(s * m + j) = 0.5 * x_(s * m + j) + 0.25;
                y_(s * m + j) = 0.5 * y_(s * m + j) + 0.25;
              }
          });
  }
  // The three ways timed `repeats` times each, every round after the works `before`
  // (interleaved_seconds): the works' times and the copy's median bandwidths.
  template <class... Before>
  std::pair<std::array<RepeatedSeconds, sizeof...(Before)>, CopyBandwidth> measure(int repeats,
                                                                                   Before&&... before) const {
    constexpr std::size_t k = sizeof...(Before);
    const auto seconds = interleaved_seconds(
        space, repeats, before..., [&] { range_policy(); }, [&] { deep_copy(); }, [&] { in_place(); });
    std::pair<std::array<RepeatedSeconds, k>, CopyBandwidth> result;
    std::copy(seconds.begin(), seconds.begin() + k, result.first.begin());
    CopyBandwidth& bandwidth = result.second;
    bandwidth.bytes_per_copy = 2 * x.extent(0) * sizeof(double);
    const double gb = static_cast<double>(bandwidth.bytes_per_copy) * copies * 1e-9;
    bandwidth.range_policy_gbs = gb / seconds[k].median;
    bandwidth.deep_copy_gbs = gb / seconds[k + 1].median;
    bandwidth.in_place_gbs = 2 * gb / seconds[k + 2].median;
    return result;
  }
};

// Copies `n` doubles `repeats` times each of the three ways, interleaved, and reports the
// median bandwidths.
template <class Space>
CopyBandwidth measure_copy_bandwidth(const Space& space, std::size_t n, int repeats, int copies = 1) {
  require(n > 0 && repeats > 0 && copies > 0, "copy bandwidth probe: need n > 0, repeats > 0 and copies > 0");
  return CopyProbe<Space>(space, n, copies).measure(repeats).second;
}

namespace Details {
// A copy of two arrays spanning `footprint` (at most the probe's two), in batches that move at
// least the probe's bytes.
template <class Space>
CopyProbe<Space> footprint_copy(const Space& space, double footprint, const CopyBandwidth& probe) {
  const double probe_bytes = static_cast<double>(probe.bytes_per_copy);
  const auto n = static_cast<std::size_t>(std::max(1.0, std::min(footprint, probe_bytes) / (2 * sizeof(double))));
  const int copies = static_cast<int>(std::min(1e5, std::ceil(probe_bytes / (2.0 * n * sizeof(double)))));
  return CopyProbe<Space>(space, n, copies);
}

inline CopyBandwidth faster(const CopyBandwidth& a, const CopyBandwidth& b) {
  return a.limit_gbs() > b.limit_gbs() ? a : b;
}
}  // namespace Details

// The copy roofline of a kernel whose data span `footprint` bytes, measured beside it: the
// faster of `probe` (the run's copy, past every cache) and a copy of two arrays spanning the
// footprint (Details::footprint_copy). A kernel whose data stay in a cache is thus rated
// against a copy that stays there too, and one that streams from memory against the best copy
// the run saw, at its start or beside it.
template <class Space>
CopyBandwidth footprint_copy_bandwidth(const Space& space, double footprint, const CopyBandwidth& probe, int repeats) {
  return Details::faster(Details::footprint_copy(space, footprint, probe).measure(repeats).second, probe);
}

// A kernel's time (work(), `repeats` runs) and its footprint's copy roofline as above, their
// runs interleaved (interleaved_seconds): the kernel, then each way of the copy, round after round.
template <class Space, class Work>
std::pair<RepeatedSeconds, CopyBandwidth> time_beside_footprint_copy(const Space& space, int repeats, double footprint,
                                                                     const CopyBandwidth& probe, Work&& work) {
  const auto measured = Details::footprint_copy(space, footprint, probe).measure(repeats, work);
  return {measured.first[0], Details::faster(measured.second, probe)};
}

}  // namespace pk
