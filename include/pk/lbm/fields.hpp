#pragma once
// Macroscopic fields on the host: density and velocity of every cell, as the last
// collision saw them. What apps write to VTK and tests compare.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pk::lbm {

struct HostFields {
  int nx = 0, ny = 0, nz = 0;
  std::int64_t step = 0;         // steps taken when the fields were read
  std::vector<double> density;   // one per cell (x fastest), 0 in solid cells
  std::vector<double> velocity;  // three per cell (ux, uy, uz), 0 in solid cells
};

// What a run's summary needs, reduced where the lattice lives (Solver::summary): no host
// copy of the fields.
struct FlowSummary {
  double mass = 0;       // the sum of the density over the non-solid cells
  double max_speed = 0;  // the largest |u|; NaN when any cell's velocity is NaN
};

// max over cells and components of |a.u - b.u|; NaN when a field holds a NaN; the fields
// must have the same size.
inline double max_velocity_difference(const HostFields& a, const HostFields& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.velocity.size() && i < b.velocity.size(); ++i) {
    const double d = std::abs(a.velocity[i] - b.velocity[i]);
    if (std::isnan(d)) return d;
    worst = std::max(worst, d);
  }
  return worst;
}

// The largest |u|; NaN when any cell's velocity is NaN.
inline double max_speed(const HostFields& fields) {
  double worst = 0;
  for (std::size_t c = 0; 3 * c + 2 < fields.velocity.size(); ++c) {
    const double* u = &fields.velocity[3 * c];
    const double speed = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (std::isnan(speed)) return speed;  // std::max would drop it
    worst = std::max(worst, speed);
  }
  return worst;
}

}  // namespace pk::lbm
