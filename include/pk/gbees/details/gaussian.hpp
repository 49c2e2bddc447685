#pragma once
// The Gaussians of GBEES: the initial PDF on its box of cells, and the likelihood of a
// measurement (eq. 4) that multiplies the PDF at a measurement time (the Monte Carlo
// reference weighs its samples with the same likelihood).
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/parameters.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace pk::gbees::Details {

// Standardised deviations z_k = (x_k - mean_k) / std_k, added in turn, and the Gaussian
// factor exp(-sum z_k^2 / 2) they give: no normalising constant, since the PDF is
// normalised afterwards.
struct GaussianExponent {
  double sum = 0;
  KOKKOS_INLINE_FUNCTION void add(double z) { sum += z * z; }
  KOKKOS_INLINE_FUNCTION double factor() const { return ::exp(-0.5 * sum); }
};

// The likelihood of measurement m at the state x (x[0..n-1]), up to a constant.
KOKKOS_INLINE_FUNCTION double likelihood(const Measurement& m, const double* x) {
  GaussianExponent e;
  for (int k = 0; k < m.count; ++k) e.add((x[m.component[k]] - m.value[k]) / m.std[k]);
  return e.factor();
}

// Cell s of PDF `member`'s initial box, or of a part of it: cells low_d + [0, width_d) per
// axis (the last axis varies fastest) around the cell `offset`, kept when its Gaussian of the
// PDF's mean (the grid's mean + shift) and standard deviations at its centre (not yet
// normalised) is at least `cut` (0: every cell). A scan over the box: `kept` counts the kept
// cells before s, and with `write` the kept cell takes slot first_slot + kept (its key, its
// Gaussian and its map entry), in the box's order. An insert that fails adds one to `failures`.
template <class Grid>
struct InitialGaussian {
  using value_type = std::int64_t;
  Geometry g;
  IndexArray low, width;
  RealArray inverse_std;
  int member;
  IndexArray offset;
  RealArray shift;
  double cut;
  bool write;
  std::int64_t first_slot;
  typename Grid::Map map;
  Kokkos::View<std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;
  Kokkos::View<int, typename Grid::memory_space> failures;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t s, std::int64_t& kept, const bool final) const {
    std::int64_t index[max_dimension] = {}, rest = s;
    GaussianExponent e;
    for (int d = g.n - 1; d >= 0; --d) {
      index[d] = offset.v[d] + low.v[d] + rest % width.v[d];
      rest /= width.v[d];
      // The centre's offset from the PDF's mean: h i - shift.
      e.add((g.h[d] * static_cast<double>(index[d]) - shift.v[d]) * inverse_std.v[d]);
    }
    const double gaussian = e.factor();
    if (!(gaussian >= cut)) return;
    if (final && write) {
      const std::int64_t slot = first_slot + kept;
      std::uint64_t k = 0;
      if (!g.codec.pack(index, k, member)) {
        Kokkos::atomic_add(&failures(), 1);
      } else {
        key(slot) = k;
        probability(slot) = gaussian;
        if (!map.insert(k, static_cast<std::int32_t>(slot)).success()) Kokkos::atomic_add(&failures(), 1);
      }
    }
    ++kept;
  }
};

// The neighbour rows of a whole initial box (every cell kept, in InitialGaussian's order from
// first_slot): a neighbour inside the box is a stride of slots away, so only the faces on the
// box's surface look in the map (another PDF's box may lie beyond).
template <class Grid>
struct InitialNeighbours {
  KeyCodec codec;
  IndexArray width;
  std::int64_t first_slot;
  typename Grid::Map map;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  typename Grid::NeighbourView neighbour;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t s) const {
    const int n = codec.n;
    const auto c = static_cast<std::int32_t>(first_slot + s);
    std::int64_t rest = s, stride = 1;
    for (int d = n - 1; d >= 0; --d) {
      const std::int64_t q = rest % width.v[d];
      rest /= width.v[d];
      neighbour(c, d) = q > 0 ? static_cast<std::int32_t>(c - stride) : find_neighbour(map, codec, key(c), d, -1);
      neighbour(c, n + d) =
          q + 1 < width.v[d] ? static_cast<std::int32_t>(c + stride) : find_neighbour(map, codec, key(c), d, 1);
      stride *= width.v[d];
    }
  }
};

// The Bayes update (eq. 4): every cell's probability times the likelihood at its centre.
template <class Grid>
struct MeasurementUpdate {
  Geometry g;
  Measurement measurement;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    double x[max_dimension];
    g.centre(key(c), x);
    probability(c) *= likelihood(measurement, x);
  }
};

}  // namespace pk::gbees::Details
