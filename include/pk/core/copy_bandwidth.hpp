#pragma once
// The copy-bandwidth probe: the memory-bandwidth limit that every memory-bound kernel is
// measured against, taken on the same space in the same run.
#include <pk/core/error.hpp>
#include <pk/core/timing.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace pk {

struct CopyBandwidth {
  std::size_t bytes_per_copy = 0;  // bytes read + bytes written by one copy
  double range_policy_gbs = 0;     // y(i) = x(i) through a RangePolicy parallel_for
  double deep_copy_gbs = 0;        // Kokkos::deep_copy of the same views
  // The best copy this space achieved: the limit a streaming kernel can approach.
  double limit_gbs() const { return range_policy_gbs > deep_copy_gbs ? range_policy_gbs : deep_copy_gbs; }
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

// Copies `n` doubles `repeats` times each way and reports the median bandwidths.
template <class Space>
CopyBandwidth measure_copy_bandwidth(const Space& space, std::size_t n, int repeats) {
  require(n > 0 && repeats > 0, "copy bandwidth probe: need n > 0 and repeats > 0");
  using Memory = typename Space::memory_space;
  Kokkos::View<double*, Memory> x(Kokkos::view_alloc(space, "pk::copy_probe::x"), n);
  Kokkos::View<double*, Memory> y(Kokkos::view_alloc(space, "pk::copy_probe::y"), n);
  Kokkos::parallel_for(
      "pk::copy_probe::fill", Kokkos::RangePolicy<Space>(space, 0, n),
      KOKKOS_LAMBDA(const std::size_t i) { x(i) = 1.0 + 1e-9 * static_cast<double>(i); });

  CopyBandwidth result;
  result.bytes_per_copy = 2 * n * sizeof(double);
  const double gb = static_cast<double>(result.bytes_per_copy) * 1e-9;
  result.range_policy_gbs = gb / median_seconds(space, repeats, [&] { copy<Space>(space, x, y); });
  result.deep_copy_gbs = gb / median_seconds(space, repeats, [&] { Kokkos::deep_copy(space, y, x); });
  return result;
}

}  // namespace pk
