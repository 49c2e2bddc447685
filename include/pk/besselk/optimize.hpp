#pragma once
// Bound-constrained maximisation without derivatives: NLopt's BOBYQA (as ExaGeoStat uses),
// behind a plain std::function so that NLopt stays out of the headers.
#include <array>
#include <functional>
#include <optional>
#include <vector>

namespace pk::besselk {

using Parameters = std::vector<double>;  // (sigma^2, beta, nu), or (beta, nu) when sigma^2 is profiled

struct OptimizerSettings {
  // Bounds of (sigma^2, beta, nu); a profiled fit uses the last two.
  std::array<double, 3> lower{0.01, 0.01, 0.05}, upper{5.0, 2.0, 5.0};
  double relative_tolerance = 1e-7;  // on the parameters
  int max_evaluations = 2000;
  // Whether to stop (after the evaluation under way) with the best so far; empty: when
  // SIGINT or SIGTERM came (pk::interrupted).
  std::function<bool()> stop;
  // Called after each evaluation with their count so far, where it was and its value (e.g. to
  // show a long fit's progress); may be empty.
  std::function<void(int evaluations, const Parameters& at, double value)> progress;
  // The value at `at` when it is already known (a resumed fit's journal, fit_journal.hpp):
  // taken instead of evaluating. May be empty.
  std::function<std::optional<double>(const Parameters& at)> recall;
};

struct Maximum {
  Parameters at{};
  double value = 0;
  int evaluations = 0;
  bool converged = false;    // NLopt stopped on a tolerance, not on the evaluation limit
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM (pk::interrupted): `at` is the best so far
};

// Maximises f over the last start.size() (2 or 3) parameters from `start` within the
// bounds. f may return -inf (e.g. a matrix that is
// not positive definite); BOBYQA then steps away. Throws pk::Error on a start outside the
// bounds or an NLopt failure.
Maximum maximize_bobyqa(const std::function<double(const Parameters&)>& f, const Parameters& start,
                        const OptimizerSettings& settings);

}  // namespace pk::besselk
