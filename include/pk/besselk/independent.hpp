#pragma once
// Independent implementations of K_nu(x) on the host, for comparison: GSL
// (gsl_sf_bessel_Knu_e, gsl_sf_bessel_lnKnu_e) and Boost.Math (cyl_bessel_k). Each returns
// NaN where the library reports an error (domain, overflow, underflow, no convergence),
// never a value the library flagged.
namespace pk::besselk {

double gsl_bessel_k(double nu, double x);
double gsl_log_bessel_k(double nu, double x);
double boost_bessel_k(double nu, double x);
// Boost has no log K: log of cyl_bessel_k, NaN where that is 0 or overflows.
double boost_log_bessel_k(double nu, double x);

}  // namespace pk::besselk
