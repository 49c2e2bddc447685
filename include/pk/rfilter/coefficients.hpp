#pragma once
// Smoothing coefficients of the K-iterated first-order Gaussian recursive filter.
#include <pk/core/error.hpp>

#include <cmath>
#include <string>

namespace pk::rfilter {

struct Coefficients {
  double sigma = 0;    // standard deviation of the Gaussian, in grid cells
  int iterations = 0;  // K: advancing + backing pairs
  double alpha = 0;    // feedback weight, eq. (8)
  double beta = 0;     // input weight, 1 - alpha
};

// Eq. (8), E = K / sigma^2. alpha = 1 + E - sqrt(E(E+2)) is evaluated as its equal
// 1 / (1 + E + sqrt(E(E+2))), which keeps full precision when K >> sigma^2.
inline Coefficients make_coefficients(double sigma, int iterations) {
  require(std::isfinite(sigma) && sigma > 0,
          "recursive filter: sigma must be a finite number > 0 (got " + std::to_string(sigma) + ")");
  require(iterations >= 1, "recursive filter: K (iterations) must be >= 1 (got " + std::to_string(iterations) + ")");
  const double e = iterations / (sigma * sigma);
  Coefficients c;
  c.sigma = sigma;
  c.iterations = iterations;
  c.alpha = 1.0 / (1.0 + e + std::sqrt(e * (e + 2.0)));
  c.beta = 1.0 - c.alpha;
  return c;
}

}  // namespace pk::rfilter
