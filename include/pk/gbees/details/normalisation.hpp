#pragma once
// Normalisation: the cell probabilities of each PDF scaled to sum 1 by a total that is
// already on the device (the update's sums, or SumProbability), so a step never waits for
// the host. One PDF sums with a reduction; an ensemble adds each cell to its PDF's row with
// an atomic.
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// The sum of each PDF's cell probabilities: parallel_reduce into the rows of MemberSums
// (nothing clipped or lost), or parallel_for with atomics into sums(member, 0) (zeroed
// before), as FiniteVolumeUpdate.
template <class Grid>
struct SumProbability {
  using value_type = double[];
  KeyCodec codec;
  Slab slab;  // a rank sums the cells it owns
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  MemberSums<typename Grid::memory_space> sums;
  unsigned value_count = 3;  // a reduction's: a row of MemberSums per PDF, the total first

  KOKKOS_INLINE_FUNCTION void init(double* v) const {
    for (unsigned i = 0; i < value_count; ++i) v[i] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(double* dst, const double* src) const {
    for (unsigned i = 0; i < value_count; ++i) dst[i] += src[i];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c, double* rows) const {
    if (slab.owns(codec, key(c))) rows[3 * codec.member(key(c))] += probability(c);
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (slab.owns(codec, key(c))) Kokkos::atomic_add(&sums(codec.member(key(c)), 0), probability(c));
  }
};

// Divides every cell by its PDF's sums(e, 0) and writes its direction mask for the next
// growth and prune; cell e < members also records PDF e's sums as the last update's
// (update_sums) and adds its clipped and outflow probability, sums(e, 1..2), to the run's
// totals (run_sums(0..1)). A step's update sums into rows of its own, so that a step of a
// batch that does nothing leaves the last update's as they are. Every path that changes
// cells or probabilities ends here.
template <class Model, class Grid>
struct ScaleByTotal {
  Model model;
  Geometry g;
  double threshold;  // p*
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> direction;
  MemberSums<typename Grid::memory_space> sums;
  MemberSums<typename Grid::memory_space> update_sums;
  Kokkos::View<double*, typename Grid::memory_space> run_sums;
  LiveCells<typename Grid::memory_space> live;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (!live(c)) return;
    const std::uint64_t k = key(c);
    const double total = sums(g.codec.member(k), 0);
    double p = probability(c);
    if (total > 0) probability(c) = p = p / total;
    direction(c) = direction_mask(model, g, k, p >= threshold);
    if (c < static_cast<int>(sums.extent(0))) {
      for (int i = 0; i < 3; ++i) update_sums(c, i) = sums(c, i);
      Kokkos::atomic_add(&run_sums(0), sums(c, 1));
      Kokkos::atomic_add(&run_sums(1), sums(c, 2));
    }
  }
};

// The direction masks of the cells in `slots` from their probabilities, as ScaleByTotal
// writes them (for ghosts whose owners sent their probabilities).
template <class Model, class Grid>
struct DirectionMasks {
  Model model;
  Geometry g;
  double threshold;  // p*
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> direction;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> slots;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const std::int32_t c = slots(i);
    direction(c) = direction_mask(model, g, key(c), probability(c) >= threshold);
  }
};

}  // namespace pk::gbees::Details
