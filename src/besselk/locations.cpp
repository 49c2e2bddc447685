#include <pk/besselk/matern.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace pk::besselk {

Locations morton_ordered(const Locations& locations) {
  const std::size_t n = locations.size();
  require(locations.y.size() == n, "locations: x and y have different lengths");
  require(n >= 2, "need at least 2 locations (got " + std::to_string(n) + ")");
  double lo_x = locations.x[0], hi_x = lo_x, lo_y = locations.y[0], hi_y = lo_y;
  for (std::size_t i = 0; i < n; ++i) {
    require(std::isfinite(locations.x[i]) && std::isfinite(locations.y[i]),
            "location " + std::to_string(i) + " has a non-finite coordinate");
    lo_x = std::min(lo_x, locations.x[i]), hi_x = std::max(hi_x, locations.x[i]);
    lo_y = std::min(lo_y, locations.y[i]), hi_y = std::max(hi_y, locations.y[i]);
  }
  const double extent = std::max({hi_x - lo_x, hi_y - lo_y, 1e-300});
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = morton_key((locations.x[i] - lo_x) / extent, (locations.y[i] - lo_y) / extent);
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
    require(!(sorted.x[i] == sorted.x[i - 1] && sorted.y[i] == sorted.y[i - 1]),
            "duplicate location (" + std::to_string(sorted.x[i]) + ", " + std::to_string(sorted.y[i]) +
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

}  // namespace pk::besselk
