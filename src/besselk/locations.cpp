#include <pk/besselk/locations.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/input_file.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <random>

namespace pk::besselk {

Locations morton_ordered(const Locations& locations) {
  const std::size_t n = locations.size();
  require(locations.y.size() == n, "locations: x and y have different lengths");
  require(n >= 2, "need at least 2 locations (got " + std::to_string(n) + ")");
  double lo_x = locations.x[0], hi_x = lo_x, lo_y = locations.y[0], hi_y = lo_y;
  for (std::size_t i = 0; i < n; ++i) {
    require(std::isfinite(locations.x[i]) && std::isfinite(locations.y[i]), "location ", i,
            " has a non-finite coordinate");
    lo_x = std::min(lo_x, locations.x[i]), hi_x = std::max(hi_x, locations.x[i]);
    lo_y = std::min(lo_y, locations.y[i]), hi_y = std::max(hi_y, locations.y[i]);
  }
  // In halves: the extent of coordinates near +-DBL_MAX stays finite.
  const double extent = std::max({hi_x / 2 - lo_x / 2, hi_y / 2 - lo_y / 2, 1e-300});
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = morton_key((locations.x[i] / 2 - lo_x / 2) / extent, (locations.y[i] / 2 - lo_y / 2) / extent);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Ties broken by the coordinates, so equal locations end up next to each other.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    if (locations.x[a] != locations.x[b]) return locations.x[a] < locations.x[b];
    return locations.y[a] < locations.y[b];
  });
  Locations sorted;
  sorted.x.resize(n), sorted.y.resize(n);
  for (std::size_t i = 0; i < n; ++i) sorted.x[i] = locations.x[order[i]], sorted.y[i] = locations.y[order[i]];
  for (std::size_t i = 1; i < n; ++i)
    require(!(sorted.x[i] == sorted.x[i - 1] && sorted.y[i] == sorted.y[i - 1]), "duplicate location (",
            std::setprecision(15), sorted.x[i], ", ", sorted.y[i],
            "): two equal rows make the covariance matrix singular");
  return sorted;
}

Locations synthetic_locations(std::size_t n, unsigned long seed) {
  require(n >= 2, "need at least 2 locations (got " + std::to_string(n) + ")");
  const std::size_t side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> jitter(-0.4, 0.4);
  Locations l;
  // The first n cells of the side x side grid, each point jittered inside its cell.
  for (std::size_t k = 0; k < n; ++k) {
    const double i = static_cast<double>(k % side), j = static_cast<double>(k / side);
    l.x.push_back((i + 0.5 + jitter(engine)) / side);
    l.y.push_back((j + 0.5 + jitter(engine)) / side);
  }
  return morton_ordered(l);
}

MaternData read_matern_data(const std::string& path) { return parse_matern_data(read_input_file(path), path); }

MaternData parse_matern_data(const std::string& text, const std::string& source) {
  Locations raw;
  std::vector<double> z;
  for (const ColumnRow& row : parse_columns(text, source, 3, "x y z")) {
    raw.x.push_back(row.values[0]), raw.y.push_back(row.values[1]), z.push_back(row.values[2]);
    require(static_cast<long>(raw.size()) <= max_locations,
            source + ": more than " + std::to_string(max_locations) + " locations");
  }
  const Locations sorted = morton_ordered(raw);  // checks n >= 2 and duplicates
  // Reorder z the same way: match by coordinates (sorted is a permutation of raw).
  std::vector<std::size_t> index(raw.size());
  std::iota(index.begin(), index.end(), 0);
  std::sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
    return raw.x[a] != raw.x[b] ? raw.x[a] < raw.x[b] : raw.y[a] < raw.y[b];
  });
  MaternData d{sorted, std::vector<double>(raw.size())};
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto it = std::lower_bound(index.begin(), index.end(), i, [&](std::size_t a, std::size_t) {
      return raw.x[a] != sorted.x[i] ? raw.x[a] < sorted.x[i] : raw.y[a] < sorted.y[i];
    });
    d.z[i] = z[*it];
  }
  return d;
}

}  // namespace pk::besselk
