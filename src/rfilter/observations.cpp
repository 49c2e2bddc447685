// Observation sets on the host: checks before any device work, and reading them from text.
#include <pk/core/column_file.hpp>
#include <pk/core/input_file.hpp>
#include <pk/rfilter/observation_set.hpp>

#include <cmath>
#include <iomanip>

namespace pk::rfilter {

void check_observations(const ObservationSet& obs, const Grid& grid) {
  check_grid(grid);
  const std::size_t n = obs.value.size();
  require(obs.x.size() == n && obs.y.size() == n && obs.z.size() == n && obs.error_std.size() == n,
          "observations: mismatched sizes (x " + std::to_string(obs.x.size()) + ", y " + std::to_string(obs.y.size()) +
              ", z " + std::to_string(obs.z.size()) + ", value " + std::to_string(n) + ", error_std " +
              std::to_string(obs.error_std.size()) + "); every array needs one entry per observation");
  const int extent[3] = {grid.nx, grid.ny, grid.nz};
  const std::vector<double>* coordinate[3] = {&obs.x, &obs.y, &obs.z};
  const char* axis_name = "xyz";
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      const double c = (*coordinate[a])[i];
      require(std::isfinite(c) && c >= 0 && c <= extent[a] - 1, "observation ", i,
              " lies outside the domain: ", axis_name[a], " = ", std::setprecision(15), c, ", allowed 0..",
              extent[a] - 1);
    }
    require(std::isfinite(obs.value[i]), "observation ", i, " has a value that is not finite");
    require(std::isfinite(obs.error_std[i]) && obs.error_std[i] > 0, "observation ", i, ": error std must be > 0 (got ",
            std::setprecision(15), obs.error_std[i], ")");
  }
}

ObservationSet read_observations(const std::string& path) { return parse_observations(read_input_file(path), path); }

ObservationSet parse_observations(const std::string& text, const std::string& source) {
  ObservationSet obs;
  for (const ColumnRow& row : parse_columns(text, source, 5, "x y z value error_std")) {
    obs.x.push_back(row.values[0]);
    obs.y.push_back(row.values[1]);
    obs.z.push_back(row.values[2]);
    obs.value.push_back(row.values[3]);
    obs.error_std.push_back(row.values[4]);
  }
  return obs;
}

}  // namespace pk::rfilter
