#include <pk/besselk/independent.hpp>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_bessel.h>

#include <boost/math/special_functions/bessel.hpp>

#include <cmath>
#include <limits>

namespace pk::besselk {

namespace {
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// GSL calls abort() on an error unless the handler is off; we read the status instead.
void gsl_handler_off() {
  static const bool done = (gsl_set_error_handler_off(), true);
  (void)done;
}

// Boost throws on overflow/underflow/domain by default; a policy that reports errno keeps
// the loop simple and the answer recognisable (inf, 0 or NaN, mapped to NaN below).
using NoThrow =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::underflow_error<boost::math::policies::errno_on_error>,
                                  boost::math::policies::evaluation_error<boost::math::policies::errno_on_error>>;
}  // namespace

double gsl_bessel_k(double nu, double x) {
  gsl_handler_off();
  gsl_sf_result r;
  return gsl_sf_bessel_Knu_e(nu, x, &r) == GSL_SUCCESS ? r.val : nan;
}

double gsl_log_bessel_k(double nu, double x) {
  gsl_handler_off();
  gsl_sf_result r;
  return gsl_sf_bessel_lnKnu_e(nu, x, &r) == GSL_SUCCESS ? r.val : nan;
}

double boost_bessel_k(double nu, double x) {
  const double k = boost::math::cyl_bessel_k(nu, x, NoThrow());
  return (std::isfinite(k) && k > 0) ? k : nan;
}

double boost_log_bessel_k(double nu, double x) {
  const double k = boost_bessel_k(nu, x);
  return std::isnan(k) ? nan : std::log(k);
}

}  // namespace pk::besselk
