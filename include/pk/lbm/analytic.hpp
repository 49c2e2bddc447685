#pragma once
// Analytic references for validation: steady laminar (Poiseuille) flow driven by a
// constant pressure gradient.
#include <cmath>

namespace pk::lbm {

// Axial velocity in a rectangular duct of width a (along y) and height b (along z), at
// (y, z) measured from the duct's centre, for pressure gradient -dp/dx = g and dynamic
// viscosity mu. The classic Fourier series (e.g. White, Viscous Fluid Flow, eq. 3-48):
//   u = 16 g A^2 / (mu pi^3) sum_{n odd} (-1)^{(n-1)/2} / n^3
//       [1 - cosh(n pi z / 2A) / cosh(n pi B / 2A)] cos(n pi y / 2A),
// with half-widths A = a/2, B = b/2. Summed until the terms fall below 1e-15 of the sum.
inline double duct_velocity(double y, double z, double a, double b, double g, double mu) {
  const double A = a / 2, B = b / 2, pi = 3.14159265358979323846;
  double sum = 0;
  for (int n = 1; n < 2001; n += 2) {
    const double k = n * pi / (2 * A);
    // cosh ratio written with exponentials that cannot overflow
    const double ratio =
        std::exp(k * (std::abs(z) - B)) * (1 + std::exp(-2 * k * std::abs(z))) / (1 + std::exp(-2 * k * B));
    const double term = ((n / 2) % 2 == 0 ? 1.0 : -1.0) / (double(n) * n * n) * (1 - ratio) * std::cos(k * y);
    sum += term;
    if (std::abs(term) < 1e-15 * std::abs(sum) && n > 7) break;
  }
  return 16 * g * A * A / (mu * pi * pi * pi) * sum;
}

}  // namespace pk::lbm
