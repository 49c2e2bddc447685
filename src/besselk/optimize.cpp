#include <pk/besselk/optimize.hpp>
#include <pk/core/error.hpp>
#include <pk/core/interrupt.hpp>

#include <nlopt.h>

#include <cmath>
#include <string>

namespace pk::besselk {

namespace {
struct Objective {
  const std::function<double(const Parameters&)>* f;
  const OptimizerSettings* settings;
  nlopt_opt opt;
  int evaluations = 0;
};

double call(unsigned n, const double* x, double*, void* data) {
  auto* objective = static_cast<Objective*>(data);
  // Stop after this evaluation.
  const OptimizerSettings& settings = *objective->settings;
  if (settings.stop ? settings.stop() : interrupted()) nlopt_force_stop(objective->opt);
  ++objective->evaluations;
  const Parameters at(x, x + n);
  const std::optional<double> known = settings.recall ? settings.recall(at) : std::nullopt;
  const double value = known ? *known : (*objective->f)(at);
  if (settings.progress) settings.progress(objective->evaluations, at, value);
  // BOBYQA needs finite values: a failed evaluation is a very low likelihood.
  return std::isfinite(value) ? value : -1e300;
}
}  // namespace

Maximum maximize_bobyqa(const std::function<double(const Parameters&)>& f, const Parameters& start,
                        const OptimizerSettings& settings) {
  const unsigned dims = static_cast<unsigned>(start.size());
  require(dims == 2 || dims == 3, "MLE: 2 or 3 parameters expected");
  const std::vector<double> lower(settings.lower.end() - dims, settings.lower.end()),
      upper(settings.upper.end() - dims, settings.upper.end());
  const char* names[3] = {"sigma^2", "beta", "nu"};
  for (unsigned i = 0; i < dims; ++i)
    require(lower[i] < upper[i] && start[i] >= lower[i] && start[i] <= upper[i],
            std::string("MLE start value ") + names[3 - dims + i] + " = " + std::to_string(start[i]) +
                " must lie in its bounds [" + std::to_string(lower[i]) + ", " + std::to_string(upper[i]) + "]");
  nlopt_opt opt = nlopt_create(NLOPT_LN_BOBYQA, dims);
  require(opt != nullptr, "NLopt: cannot create a BOBYQA optimiser");
  Objective objective{&f, &settings, opt};
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_max_objective(opt, call, &objective);
  nlopt_set_xtol_rel(opt, settings.relative_tolerance);
  nlopt_set_maxeval(opt, settings.max_evaluations);
  Maximum m;
  m.at = start;
  const nlopt_result status = nlopt_optimize(opt, m.at.data(), &m.value);
  nlopt_destroy(opt);
  m.interrupted = status == NLOPT_FORCED_STOP;
  require(status > 0 || m.interrupted, "NLopt BOBYQA failed with status " + std::to_string(static_cast<int>(status)));
  m.evaluations = objective.evaluations;
  m.converged = status > 0 && status != NLOPT_MAXEVAL_REACHED;
  return m;
}

}  // namespace pk::besselk
