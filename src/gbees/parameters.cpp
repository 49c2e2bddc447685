#include <pk/core/column_file.hpp>
#include <pk/core/error.hpp>
#include <pk/core/input_file.hpp>
#include <pk/gbees/parameters.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pk::gbees {

namespace {
std::string str(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// In cells, before validate has bounded it: a ratio of finite widths can overflow any integer.
double initial_half_cells(const Parameters& p, int j) {
  return std::round(p.initial_extent * p.initial_std[j] / p.cell_width[j]);
}
}  // namespace

void validate(const Parameters& p, int n) {
  require(n >= 2 && n <= max_dimension, "dimension " + std::to_string(n) + ": GBEES here handles 2 to " +
                                            std::to_string(max_dimension) + " variables");
  auto check_vector = [&](const std::vector<double>& v, const std::string& what, bool positive) {
    require(static_cast<int>(v.size()) == n,
            what + " has " + std::to_string(v.size()) + " values, the model has " + std::to_string(n) + " variables");
    for (std::size_t j = 0; j < v.size(); ++j) {
      require(std::isfinite(v[j]), what + "[" + std::to_string(j + 1) + "] is not a finite number");
      if (positive) require(v[j] > 0, what + "[" + std::to_string(j + 1) + "] = " + str(v[j]) + ": must be > 0");
    }
  };
  check_vector(p.initial_mean, "initial mean", false);
  check_vector(p.initial_std, "initial std", true);
  check_vector(p.cell_width, "cell width h", true);
  require(p.threshold > 0 && p.threshold < 1, "threshold p* = " + str(p.threshold) + ": must lie in (0, 1)");
  require(p.epsilon > 0 && p.epsilon <= 1,
          "epsilon = " + str(p.epsilon) + ": the step is epsilon * CFL limit, epsilon must lie in (0, 1]");
  require(p.prune_interval >= 1, "prune interval " + std::to_string(p.prune_interval) + ": must be >= 1 step");
  require(std::isfinite(p.initial_extent) && p.initial_extent >= 1 && p.initial_extent <= 10,
          "initial extent " + str(p.initial_extent) + " std: must lie in [1, 10]");
  require(std::isfinite(p.end_time) && p.end_time > 0, "end time " + str(p.end_time) + ": must be > 0");
  double previous = 0;
  for (const Measurement& m : p.measurements) {
    require(
        m.time > previous && m.time <= p.end_time,
        "measurement at t = " + str(m.time) + ": times must increase and lie in (0, end time " + str(p.end_time) + "]");
    previous = m.time;
    require(m.count >= 1 && m.count <= n, "measurement at t = " + str(m.time) + ": needs 1 to n observed components");
    for (int k = 0; k < m.count; ++k) {
      require(m.component[k] >= 0 && m.component[k] < n, "measurement at t = " + str(m.time) + ": component " +
                                                             std::to_string(m.component[k] + 1) +
                                                             " does not exist (1 to " + std::to_string(n) + ")");
      require(std::isfinite(m.value[k]), "measurement at t = " + str(m.time) + ": value is not finite");
      require(std::isfinite(m.std[k]) && m.std[k] > 0,
              "measurement at t = " + str(m.time) + ": std " + str(m.std[k]) + " must be > 0");
    }
  }
  require(p.member_means.size() <= static_cast<std::size_t>(max_members),
          "an ensemble of " + std::to_string(p.member_means.size()) + " PDFs: at most " + std::to_string(max_members) +
              " fit the cell key");
  for (std::size_t e = 0; e < p.member_means.size(); ++e)
    check_vector(p.member_means[e], "mean of ensemble member " + std::to_string(e + 1), false);
  // The packed key holds (64 - member bits)/n bits per axis; the initial boxes must leave
  // room to grow.
  const int member_bits = member_key_bits(p);
  const double limit = std::ldexp(1.0, (64 - member_bits) / n - 1);
  for (int j = 0; j < n; ++j) {
    const double half = initial_half_cells(p, j);
    double offset = 0;
    for (const std::vector<double>& mean : p.member_means)
      offset = std::max(offset, std::fabs(std::round((mean[j] - p.initial_mean[j]) / p.cell_width[j])));
    require(offset + half < limit / 2, "cell width h[" + std::to_string(j + 1) + "] = " + str(p.cell_width[j]) +
                                           " gives initial boxes reaching +-" + str(offset + half) + " cells; the " +
                                           std::to_string(n) + "-D key allows +-" + str(limit) +
                                           (member_bits > 0 ? " beside the ensemble's number" : "") +
                                           " (use a larger h)");
  }
}

std::vector<Measurement> read_measurements(const std::string& path, int n) {
  return parse_measurements(read_input_file(path), path, n);
}

std::vector<Measurement> parse_measurements(const std::string& text, const std::string& path, int n) {
  std::vector<Measurement> out;
  for (const ColumnRow& row : parse_columns(text, path, 4, "time component value std")) {
    const double t = row.values[0], component = row.values[1];
    if (!(component == std::floor(component) && component >= 1 && component <= n))
      throw file_error(path, row.line, "component " + str(component) + " not in 1.." + std::to_string(n));
    if (out.empty() || out.back().time != t) {
      out.emplace_back();
      out.back().time = t;
    }
    Measurement& m = out.back();
    if (m.count >= max_dimension) throw file_error(path, row.line, "too many components at t = " + str(t));
    m.component[m.count] = static_cast<int>(component) - 1;
    m.value[m.count] = row.values[2];
    m.std[m.count] = row.values[3];
    ++m.count;
  }
  require(!out.empty(), "measurement file " + path + ": holds no measurement");
  return out;
}

Parameters lorenz63_paper() {
  Parameters p;
  p.initial_mean = {-11.5, -10, 9.5};
  p.initial_std = {1, 1, 1};
  p.cell_width = {0.5, 0.5, 0.5};
  p.threshold = 5e-6;
  p.end_time = 2;
  Measurement m;
  m.time = 1;
  m.count = 1;
  m.component[0] = 2;
  m.value[0] = -8;
  m.std[0] = 1;
  p.measurements = {m};
  return p;
}

Parameters lorenz96_paper(int n, double forcing) {
  Parameters p;
  p.initial_mean.assign(n, forcing);
  if (n > 0) p.initial_mean[0] = forcing + 0.5;
  p.initial_std.assign(n, 0.2);
  p.cell_width.assign(n, 0.1);
  p.threshold = 8e-9;  // as the GBEES-GPU Lorenz 6-D configuration
  p.end_time = 1.3;
  return p;
}

// gbees-cuda's PCR3BP example (measurements/PCR3BP/measurement0.txt): an orbit about
// Enceladus in the Saturn-Enceladus system, the first measurement period T; cell widths
// half the initial standard deviations and p* = 1e-7, as its grid configuration.
Parameters pcr3bp_enceladus() {
  Parameters p;
  p.initial_mean = {1.001471995170839, -0.000017518099335, 0.000071987832396, 0.013633926328993};
  const double position_std = std::sqrt(7.0303608437767e-9), velocity_std = std::sqrt(2.51477110445507e-8);
  p.initial_std = {position_std, position_std, velocity_std, velocity_std};
  for (double s : p.initial_std) p.cell_width.push_back(s / 2);
  p.threshold = 1e-7;
  p.end_time = 0.931792004789438;
  return p;
}

// gbees-cuda's CR3BP example (measurements/CR3BP/measurement0.txt): an orbit about Europa
// in the Jupiter-Europa system over T, no measurement; widths and p* as above.
Parameters cr3bp_europa() {
  Parameters p;
  p.initial_mean = {1.0169962521469986,      -1.0697953862098174e-20, -5.1360139986508944e-34,
                    -1.3935178510137174e-14, 1.2575912545456968e-2,   -3.1572204202682494e-33};
  const double position_std = std::sqrt(2.2375e-8), velocity_std = std::sqrt(5.2767e-7);
  p.initial_std = {position_std, position_std, position_std, velocity_std, velocity_std, velocity_std};
  for (double s : p.initial_std) p.cell_width.push_back(s / 2);
  p.threshold = 1e-7;
  p.end_time = 0.889584448745932;
  return p;
}

std::int64_t initial_half_width(const Parameters& p, int j) {
  return static_cast<std::int64_t>(initial_half_cells(p, j));
}

double initial_cut(const Parameters& p, const std::vector<double>& shift) {
  if (!p.initial_above_threshold) return 0;
  double sum = 1;
  for (std::size_t j = 0; j < p.cell_width.size(); ++j) {
    const std::int64_t half = initial_half_width(p, static_cast<int>(j));
    const auto offset = static_cast<std::int64_t>(std::round(shift[j] / p.cell_width[j]));
    double axis = 0;
    for (std::int64_t i = offset - half; i <= offset + half; ++i) {
      const double z = (p.cell_width[j] * static_cast<double>(i) - shift[j]) / p.initial_std[j];
      axis += std::exp(-0.5 * z * z);
    }
    sum *= axis;
  }
  return p.threshold * sum;
}

AxisRange initial_axis_range(const Parameters& p, int j, double shift, double cut) {
  const std::int64_t half = initial_half_width(p, j);
  if (!(cut > 0)) return {-half, half};
  const double budget = -2 * std::log(cut);
  if (!(budget >= 0)) return {1, 0};
  // Cell i's centre lies i - centre cells from the mean, |centre| <= 1/2; both ends stay
  // within -half..0 and 0..half, so the casts are exact.
  const double h = p.cell_width[j], centre = shift / h - std::round(shift / h);
  const double reach = std::sqrt(budget) * p.initial_std[j] / h + 1;
  return {static_cast<std::int64_t>(std::max<double>(-half, std::floor(centre - reach))),
          static_cast<std::int64_t>(std::min<double>(half, std::ceil(centre + reach)))};
}

double initial_cell_count(const Parameters& p) {
  const int n = static_cast<int>(p.cell_width.size());
  std::vector<std::int64_t> half(n);
  std::vector<double> step(n);  // a cell's width in standard deviations
  double box = member_count(p);
  for (int j = 0; j < n; ++j) {
    half[j] = initial_half_width(p, j);
    step[j] = p.cell_width[j] / p.initial_std[j];
    box *= static_cast<double>(2 * half[j] + 1);
  }
  if (!p.initial_above_threshold || n == 0) return box;
  // The cells of a box centred on its PDF's mean whose Gaussian is at least initial_cut, i.e.
  // |z|^2 <= budget: a count over the ranges of all axes but the last, which takes the |i|
  // that fit.
  const double cut = initial_cut(p, std::vector<double>(n, 0.0)), budget = -2 * std::log(cut);
  if (!(budget >= 0)) return 0;
  std::vector<AxisRange> range(n);
  double steps = 1, ranges = member_count(p), cell_volume = 1;
  for (int j = 0; j < n; ++j) {
    range[j] = initial_axis_range(p, j, 0.0, cut);
    const auto cells = static_cast<double>(range[j].last - range[j].first + 1);
    if (j + 1 < n) steps *= cells;
    ranges *= cells;
    cell_volume *= step[j];
  }
  if (steps > 0x1p26) {
    const double ball = std::pow(std::acos(-1.0) * budget, 0.5 * n) / std::tgamma(0.5 * n + 1);
    return std::min(ranges, member_count(p) * ball / cell_volume);
  }
  const auto count = [&](const auto& self, int j, double left) -> double {
    if (!(left >= 0)) return 0;
    if (j + 1 == n) return 2 * std::min<double>(half[j], std::floor(std::sqrt(left) / step[j])) + 1;
    double cells = 0;
    for (std::int64_t i = range[j].first; i <= range[j].last; ++i) {
      const double z = step[j] * static_cast<double>(i);
      cells += self(self, j + 1, left - z * z);
    }
    return cells;
  };
  return member_count(p) * count(count, 0, budget);
}

}  // namespace pk::gbees
