// Lattice Boltzmann tutorial: pressure-driven flow through a square duct (Poiseuille flow),
// compared with the analytic velocity profile.
//
//   build/openmp/examples/pk-example-lbm-poiseuille
//
// Everything is in lattice units: cells of width 1, time steps of 1, kinematic viscosity
// (tau - 1/2) / 3, pressure = density / 3. What it checks (exit status 1 if it fails): the
// velocity over the duct's mid cross-section is within 2 % (L2) of the analytic profile.
#include <pk/lbm/analytic.hpp>
#include <pk/lbm/solver.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace {

template <class Space>
bool run(const Space& space) {
  // A duct along x: 16 cells long, 8 x 8 fluid cells across, surrounded by one layer of
  // solid (bounce-back wall) cells, a pressure inlet at x = 0 and an outlet at x = 15.
  const int length = 16, width = 8;
  const pk::lbm::Geometry duct = pk::lbm::box_channel(length, width, width);

  pk::lbm::Parameters parameters;
  parameters.tau = 1.0;              // BGK relaxation time: viscosity 1/6
  parameters.inlet_density = 1.01;   // the density (pressure) drop drives the flow;
  parameters.outlet_density = 0.99;  // refused up front if it could exceed max_mach
  // fp64 populations (the default, float, is as accurate here); A-A streaming by default.
  pk::lbm::Solver<Space, double> solver(space, duct, parameters);

  // Viscous spin-up takes about width^2 / viscosity steps; every 100 steps the solver checks
  // the flow's health and throws pk::Error, naming step and cell, if it blew up.
  const int steps = 700;
  solver.advance(steps);
  const pk::lbm::HostFields fields = solver.fields();  // density and velocity, on the host

  // The analytic profile for the pressure gradient and density the solver actually has at
  // the mid cross-section x = xm (central difference of p = rho / 3).
  const int xm = length / 2;
  double rho = 0, gradient = 0;
  for (int z = 1; z <= width; ++z)
    for (int y = 1; y <= width; ++y) {
      rho += fields.density[duct.cell_index(xm, y, z)] / (width * width);
      gradient -= (fields.density[duct.cell_index(xm + 1, y, z)] - fields.density[duct.cell_index(xm - 1, y, z)]) /
                  (2 * 3.0 * width * width);  // -dp/dx
    }
  const double viscosity = (parameters.tau - 0.5) / 3;
  double error2 = 0, exact2 = 0, centre = 0;
  for (int z = 1; z <= width; ++z)
    for (int y = 1; y <= width; ++y) {
      // Half-way bounce-back: the walls lie half a cell beyond the outermost fluid cells,
      // so the duct's centre is at (width + 1) / 2 in cell coordinates.
      const double u = fields.velocity[3 * duct.cell_index(xm, y, z)];  // x component
      const double exact =
          pk::lbm::duct_velocity(y - (width + 1) / 2.0, z - (width + 1) / 2.0, width, width, gradient, rho * viscosity);
      error2 += (u - exact) * (u - exact);
      exact2 += exact * exact;
      centre = std::max(centre, u);
    }
  const double l2 = std::sqrt(error2 / exact2);
  std::printf(
      "%d steps of a %d x %d x %d duct: centre speed %.5f (Mach %.3f), L2 error against the analytic "
      "profile %.2e\n",
      steps, duct.nx(), duct.ny(), duct.nz(), centre, centre / std::sqrt(1.0 / 3), l2);
  return l2 < 0.02;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;  // the GPU in a CUDA build, else OpenMP
  std::printf("D3Q19 lattice Boltzmann, Poiseuille flow, on %s\n", Space::name());
  const bool ok = run(Space{});
  std::printf("%s\n", ok ? "within 2 % of the analytic profile" : "FAILED: more than 2 % from the analytic profile");
  return ok ? 0 : 1;
}
