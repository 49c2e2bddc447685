#pragma once
// The copy-bandwidth probe: the memory-bandwidth limit that every memory-bound kernel is
// measured against, taken on the same space in the same run (a copy to another array, Kokkos'
// deep_copy, and an update in place).
#include <pk/core/error.hpp>
#include <pk/core/timing.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

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

// Copies `n` doubles `repeats` times each way and reports the median bandwidths. Each timed
// repeat queues `copies` copies back to back, alternating direction, as a kernel queues its
// steps: a short copy then pays one launch wait per batch, not per copy.
template <class Space>
CopyBandwidth measure_copy_bandwidth(const Space& space, std::size_t n, int repeats, int copies = 1) {
  require(n > 0 && repeats > 0 && copies > 0, "copy bandwidth probe: need n > 0, repeats > 0 and copies > 0");
  using Memory = typename Space::memory_space;
  Kokkos::View<double*, Memory> x(Kokkos::view_alloc(space, "pk::copy_probe::x"), n);
  Kokkos::View<double*, Memory> y(Kokkos::view_alloc(space, "pk::copy_probe::y"), n);
  Kokkos::parallel_for(
      "pk::copy_probe::fill", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) { x(i) = y(i) = 1.0 + 1e-9 * static_cast<double>(i); });

  CopyBandwidth result;
  result.bytes_per_copy = 2 * n * sizeof(double);
  const double gb = static_cast<double>(result.bytes_per_copy) * copies * 1e-9;
  result.range_policy_gbs = gb / median_seconds(space, repeats, [&] {
                              for (int c = 0; c < copies; ++c)
                                c % 2 ? copy<Space>(space, y, x) : copy<Space>(space, x, y);
                            });
  result.deep_copy_gbs = gb / median_seconds(space, repeats, [&] {
                           for (int c = 0; c < copies; ++c)
                             c % 2 ? Kokkos::deep_copy(space, x, y) : Kokkos::deep_copy(space, y, x);
                         });
  // Both views in place, each element read and written once: twice a copy's bytes, in 16
  // streams at once (8 segments of each view), as kernels that read many arrays (a lattice's 19
  // directions) have them: a CPU core's bandwidth grows with the streams it keeps in flight,
  // beyond a copy's two. The map x -> x / 2 + 1 / 4 keeps every value near 1/2, however often.
  // Segments start whole cache lines apart but not a power of two apart: 16 streams whose
  // addresses differ by a large power of two would fall into the same cache sets.
  constexpr std::size_t segments = 8;
  const std::size_t m = ((n + segments - 1) / segments + 7) / 8 * 8 + 8 * 9;
  result.in_place_gbs =
      2 * gb / median_seconds(space, repeats, [&] {
        for (int c = 0; c < copies; ++c)
          Kokkos::parallel_for(
              "pk::copy_probe::in_place", Kokkos::RangePolicy<Space>(space, 0, m), KOKKOS_LAMBDA(const std::size_t j) {
                for (std::size_t s = 0; s < segments; ++s)
                  if (s * m + j < n) {
                    x(s * m + j) = 0.5 * x(s * m + j) + 0.25;
                    y(s * m + j) = 0.5 * y(s * m + j) + 0.25;
                  }
              });
      });
  return result;
}

// The copy roofline of a kernel whose data span `footprint` bytes, measured beside it: the
// faster of `probe` (the run's copy, past every cache) and a copy of two arrays spanning the
// footprint (at most the probe's two), queued in batches that move at least the probe's bytes.
// A kernel whose data stay in a cache is thus rated against a copy that stays there too, and
// one that streams from memory against the best copy the run saw, at its start or beside it.
template <class Space>
CopyBandwidth footprint_copy_bandwidth(const Space& space, double footprint, const CopyBandwidth& probe, int repeats) {
  const double probe_bytes = static_cast<double>(probe.bytes_per_copy);
  const auto n = static_cast<std::size_t>(std::max(1.0, std::min(footprint, probe_bytes) / (2 * sizeof(double))));
  const int copies = static_cast<int>(std::min(1e5, std::ceil(probe_bytes / (2.0 * n * sizeof(double)))));
  const CopyBandwidth beside = measure_copy_bandwidth(space, n, repeats, copies);
  return beside.limit_gbs() > probe.limit_gbs() ? beside : probe;
}

}  // namespace pk
