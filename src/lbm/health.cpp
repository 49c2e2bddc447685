#include <pk/lbm/details/health.hpp>
#include <pk/lbm/lattice.hpp>

#include <cmath>
#include <sstream>

namespace pk::lbm::Details {

std::string unhealthy_message(const Geometry& geometry, std::int64_t step, int first, const std::array<int, 3>& origin,
                              const CellMoments& cell, const Parameters& parameters) {
  const int x = first % geometry.nx() + origin[0], y = first / geometry.nx() % geometry.ny() + origin[1],
            z = first / geometry.nx() / geometry.ny() + origin[2];
  const double rho = cell.density;
  const double* u = cell.velocity;
  const double speed = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  std::ostringstream what;
  what << "pk::lbm: at step " << step << ", cell (" << x << ", " << y << ", " << z << "): ";
  if (std::isnan(rho) || std::isnan(speed))
    what << "density or velocity is NaN";
  else if (rho <= 0)
    what << "density " << rho << " is not positive";
  else
    what << "Mach number " << speed / std::sqrt(D3Q19::cs2) << " exceeds the limit " << parameters.max_mach;
  what << " (health checked every " << parameters.check_interval
       << " steps); the flow is unstable: raise tau, lower the pressure drop or refine the lattice";
  return what.str();
}

}  // namespace pk::lbm::Details
