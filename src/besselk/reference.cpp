#include <pk/besselk/reference.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/data_files.hpp>
#include <pk/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace pk::besselk {

std::string locate_reference(const std::string& built_in) {
  if (const char* env = std::getenv("PK_BESSELK_REFERENCE"); env && *env) return env;
  if (const std::string path = data_file("besselk/reference.txt", built_in); std::ifstream(path).good()) return path;
  return "tests/besselk/reference.txt";
}

std::vector<ReferencePoint> read_reference(const std::string& path) {
  std::vector<ReferencePoint> points;
  // K beyond the double range reads as +inf / 0, which is what the comparisons want.
  for (const ColumnRow& row : read_columns(path, 4, "nu x log_K K", true))
    points.push_back({row.values[0], row.values[1], row.values[2], row.values[3]});
  require(!points.empty(), "BesselK reference table '" + path + "' holds no points");
  return points;
}

double log_k_error(double got, double want) {
  if (!std::isfinite(got)) return 1.0;
  return std::abs(got - want) / std::max(1.0, std::abs(want));
}

double k_error(double got, double want) {
  if (!(want > 1e-300 && want < 1e300)) return std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(got)) return 1.0;
  return std::abs(got - want) / want;
}

const std::vector<Region>& accuracy_regions() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  static const std::vector<Region> regions{
      {"gp_series", "gp nu<=5, x<=1 (series)", 0, 5, 1e-6, 1.0000000001},
      {"gp_integral", "gp nu<=5, 1<x<25 (integral)", 0, 5, 1.0000000001, 25},
      {"gp_asymptotic", "gp nu<=5, 25<=x<=700 (asymptotic)", 0, 5, 25, 700.0000001},
      {"high_series", "high nu>5, x<=1 (series)", 5, 50, 1e-6, 1.0000000001},
      {"high_integral", "high nu>5, 1<x<25 (integral)", 5, 50, 1.0000000001, 25},
      {"high_asymptotic", "high nu>5, 25<=x<=700 (asymptotic)", 5, 50, 25, 700.0000001},
      {"outside_small_x", "outside box, x<1e-6", -1, 50, 0, 1e-6},
      {"outside_large_x", "outside box, x>700", -1, 50, 700.0000001, inf},
  };
  return regions;
}

namespace {
double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}
}  // namespace

ErrorSummary summarize(const std::vector<ReferencePoint>& reference, const std::vector<double>& got_log_k,
                       const std::vector<double>& got_k, const Region& region) {
  require(got_log_k.size() == reference.size() && got_k.size() == reference.size(),
          "summarize: one answer per reference point expected");
  ErrorSummary s;
  std::vector<double> log_errors, k_errors;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const auto& p = reference[i];
    if (!region.contains(p.nu, p.x)) continue;
    if (std::isnan(got_log_k[i]) && std::isnan(got_k[i])) {
      ++s.unanswered;
      continue;
    }
    ++s.points;
    if (!std::isnan(got_log_k[i])) log_errors.push_back(log_k_error(got_log_k[i], p.log_k));
    const double e = k_error(got_k[i], p.k);
    if (!std::isnan(e)) k_errors.push_back(e);
  }
  for (double e : log_errors) s.max_log = std::max(s.max_log, e);
  for (double e : k_errors) s.max_k = std::max(s.max_k, e);
  s.median_log = median(log_errors);
  s.median_k = median(k_errors);
  return s;
}

}  // namespace pk::besselk
