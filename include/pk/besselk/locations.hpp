#pragma once
// Locations of the Matern codes: 2-D points kept in Morton order, synthetic ones, and data
// files of observations ("x y z" lines). Free of Kokkos, so that the fuzz targets
// (tests/fuzz) build them alone.
#include <pk/core/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::besselk {

// Beyond this the n x n covariance matrix (8 n^2 bytes) exceeds any device's memory.
inline constexpr long max_locations = 200000;

// 2-D locations, structure of arrays.
struct Locations {
  std::vector<double> x, y;
  std::size_t size() const { return x.size(); }
};

// The Morton (Z-order) key of a point of the unit square: 16 bits per axis, interleaved.
inline std::uint32_t morton_key(double x, double y) {
  const auto quantise = [](double v) {
    const double c = v > 0 ? std::min(v, 1.0) : 0.0;  // NaN too: 0
    return static_cast<std::uint32_t>(c * 65535.0 + 0.5);
  };
  const auto spread = [](std::uint32_t v) {  // 16 bits -> every other bit of 32
    v &= 0xFFFF;
    v = (v | (v << 8)) & 0x00FF00FF;
    v = (v | (v << 4)) & 0x0F0F0F0F;
    v = (v | (v << 2)) & 0x33333333;
    v = (v | (v << 1)) & 0x55555555;
    return v;
  };
  return spread(quantise(x)) | (spread(quantise(y)) << 1);
}

// Sorts locations into Morton order (after scaling their bounding box into the unit
// square). Throws pk::Error for fewer than 2 locations, non-finite coordinates or two
// equal locations (the covariance matrix would be singular).
Locations morton_ordered(const Locations& locations);

// n locations on a jittered sqrt(n) x sqrt(n) grid in the unit square, as ExaGeoStat's
// synthetic data, Morton-ordered.
Locations synthetic_locations(std::size_t n, unsigned long seed);

// Observations z at locations, Morton-ordered (z follows its location).
struct MaternData {
  Locations locations;
  std::vector<double> z;
};

// Reads "x y z" lines (pk/core/column_file.hpp), at most max_locations. Throws pk::Error on a
// bad line and as morton_ordered does.
MaternData read_matern_data(const std::string& path);
// The same for the content of a file; `source` names it in messages.
MaternData parse_matern_data(const std::string& text, const std::string& source);

}  // namespace pk::besselk
