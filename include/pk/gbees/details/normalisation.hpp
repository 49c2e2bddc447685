#pragma once
// Normalisation: the cell probabilities scaled to sum 1 by a total that is already on the
// device (the update's reduction, or SumProbability), so a step never waits for the host.
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// The sum of the cell probabilities (parallel_reduce).
template <class Grid>
struct SumProbability {
  Kokkos::View<const double*, typename Grid::memory_space> probability;

  KOKKOS_INLINE_FUNCTION void operator()(const int c, double& sum) const { sum += probability(c); }
};

// Divides every cell by sums(0) and writes its direction mask for the next growth and prune;
// cell 0 also records sums as the last update's (update_sums) and adds the clipped and
// outflow probability of sums(1..2) to the run's totals (run_sums(0..1)). A step's update
// reduces into sums of its own, so that a step of a batch that does nothing leaves the
// last update's as they are. Every path that changes cells or probabilities ends here.
template <class Model, class Grid>
struct ScaleByTotal {
  Model model;
  Geometry g;
  double threshold;  // p*
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> direction;
  Kokkos::View<const double*, typename Grid::memory_space> sums;
  Kokkos::View<double*, typename Grid::memory_space> update_sums;
  Kokkos::View<double*, typename Grid::memory_space> run_sums;
  LiveCells<typename Grid::memory_space> live;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (!live(c)) return;
    const double total = sums(0);
    double p = probability(c);
    if (total > 0) probability(c) = p = p / total;
    direction(c) = direction_mask(model, g, key(c), p >= threshold);
    if (c == 0) {
      for (int k = 0; k < 3; ++k) update_sums(k) = sums(k);
      run_sums(0) += sums(1);
      run_sums(1) += sums(2);
    }
  }
};

}  // namespace pk::gbees::Details
