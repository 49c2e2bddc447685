#pragma once
// The mpmath reference table (tests/besselk/reference.txt, made by make_reference.py) and
// the error measures and regions used to report the accuracy of K_nu and log K_nu.
#include <cstddef>
#include <string>
#include <vector>

namespace pk::besselk {

struct ReferencePoint {
  double nu, x;
  double log_k;  // log K_nu(x), rounded to double
  double k;      // K_nu(x); +inf or 0 where it lies outside the double range
};

// Where the table is: $PK_BESSELK_REFERENCE if set; else the installed copy
// (share/portablekernels/besselk/reference.txt beside an installed program's bin); else
// `built_in` (the source tree's path compiled into tests and benchmarks) if it exists; else
// tests/besselk/reference.txt under the working directory (a copy of the tree on another
// machine, run from its root).
std::string locate_reference(const std::string& built_in);

// Reads "nu x log_K K" lines ('#' starts a comment). Throws pk::Error on a missing file
// or a malformed line.
std::vector<ReferencePoint> read_reference(const std::string& path);

// Error of log K: absolute where |log K| <= 1 and relative beyond, because log K passes
// through 0 (near x = 1) where a relative error means nothing. NaN/inf count as 1.
double log_k_error(double got, double want);
// Relative error of K where the reference is a normal double (1e-300..1e300), else NaN:
// such points are left out of the K columns.
double k_error(double got, double want);

// A block of (nu, x) used in the tables: nu in (nu_lo, nu_hi], x in [x_lo, x_hi).
struct Region {
  std::string key;   // short name for metrics ("gp_series")
  std::string name;  // for tables
  double nu_lo, nu_hi, x_lo, x_hi;
  bool contains(double nu, double x) const { return nu > nu_lo && nu <= nu_hi && x >= x_lo && x < x_hi; }
};
// The Gaussian-process orders (nu <= 5) and the high orders, each split at the x where
// evaluate() changes path; and the points outside the tested box [1e-6, 700].
const std::vector<Region>& accuracy_regions();

struct ErrorSummary {
  std::size_t points = 0;      // points of the region the implementation answered
  std::size_t unanswered = 0;  // points where it gave NaN/inf or failed (GSL/Boost errors)
  double max_log = 0, median_log = 0;
  double max_k = 0, median_k = 0;  // over the points where k_error is defined
};

// Errors of one implementation over the points of `region`; got_log_k/got_k hold its
// answers for every reference point, NaN where it gave none.
ErrorSummary summarize(const std::vector<ReferencePoint>& reference, const std::vector<double>& got_log_k,
                       const std::vector<double>& got_k, const Region& region);

}  // namespace pk::besselk
