#include <pk/core/error.hpp>
#include <pk/lbm/lattice.hpp>
#include <pk/lbm/parameters.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pk::lbm {

const char* streaming_name(Streaming streaming) { return streaming == Streaming::aa ? "aa" : "ab"; }

namespace {
std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

void validate(const Parameters& p, const Geometry& geometry) {
  require(std::isfinite(p.tau) && p.tau > 0.5,
          "tau = " + number(p.tau) + ": the relaxation time must be > 0.5 (viscosity (tau - 0.5)/3 must be positive)");
  require(p.tau <= 100, "tau = " + number(p.tau) + ": relaxation times above 100 are not supported");
  require(std::isfinite(p.max_mach) && p.max_mach > 0 && p.max_mach < 1,
          "max Mach number " + number(p.max_mach) + " must be in (0, 1)");
  require(p.check_interval >= 0, "health-check interval " + std::to_string(p.check_interval) + " must be >= 0");
  for (auto [name, value] : {std::pair<const char*, double>{"initial density", p.initial_density},
                             {"inlet density", p.inlet_density},
                             {"outlet density", p.outlet_density}})
    require(std::isfinite(value) && value > 0, std::string(name) + " " + number(value) + " must be positive");
  const double cs = std::sqrt(D3Q19::cs2);
  double u2 = 0;
  for (double u : p.initial_velocity) {
    require(std::isfinite(u), "initial velocity must be finite");
    u2 += u * u;
  }
  const double initial_mach = std::sqrt(u2) / cs;
  require(initial_mach <= p.max_mach, "initial velocity has Mach number " + number(initial_mach) +
                                          ", above the limit " + number(p.max_mach) + " (|u| <= max_mach * 0.577)");
  // Densities that drive the flow: the prescribed ones present, and the initial one.
  double lowest = p.initial_density, highest = p.initial_density;
  if (geometry.count(CellType::inlet) > 0)
    lowest = std::min(lowest, p.inlet_density), highest = std::max(highest, p.inlet_density);
  if (geometry.count(CellType::outlet) > 0)
    lowest = std::min(lowest, p.outlet_density), highest = std::max(highest, p.outlet_density);
  const double bernoulli_mach = std::sqrt(2 * (highest - lowest) / lowest);
  require(bernoulli_mach <= p.max_mach, "density drop " + number(highest - lowest) + " can drive the flow to Mach " +
                                            number(bernoulli_mach) + " (Bernoulli bound), above the limit " +
                                            number(p.max_mach) + "; lower the inlet/outlet density difference below " +
                                            number(p.max_mach * p.max_mach * lowest / 2));
}

}  // namespace pk::lbm
