#pragma once
// The analysis grid and observation sets on the host: their checks, and reading them from
// text. Free of Kokkos, so that the fuzz targets (tests/fuzz) build them alone.
#include <pk/core/error.hpp>

#include <string>
#include <vector>

namespace pk::rfilter {

// The analysis grid; fields are flat LayoutLeft vectors, x fastest.
struct Grid {
  int nx = 1, ny = 1, nz = 1;
  long size() const { return static_cast<long>(nx) * ny * nz; }
};

inline void check_grid(const Grid& g) {
  require(g.nx >= 1 && g.ny >= 1 && g.nz >= 1, "3D-Var: grid extents must be >= 1 (got " + std::to_string(g.nx) + "x" +
                                                   std::to_string(g.ny) + "x" + std::to_string(g.nz) + ")");
}

// Host-side observation set, structure of arrays: position (x, y, z), value, error std.
struct ObservationSet {
  std::vector<double> x, y, z, value, error_std;
  std::size_t size() const { return value.size(); }
};

// Throws pk::Error unless every array has one entry per observation, every position lies
// in the grid (0 <= x <= nx-1, ...) and every error std is > 0.
void check_observations(const ObservationSet& obs, const Grid& grid);

// Reads "x y z value error_std" lines ('#' starts a comment). Throws pk::Error on a line
// that is not five numbers, naming the file and line.
ObservationSet read_observations(const std::string& path);
// The same for the content of a file; `source` names it in messages.
ObservationSet parse_observations(const std::string& text, const std::string& source);

}  // namespace pk::rfilter
