// A shear wave u_x = U sin(2 pi y / n) in a periodic box decays as exp(-nu k^2 t), k = 2 pi / n:
// run through the installed PortableKernels::lbm and compared with that rate.
#include <pk/lbm/solver.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultHostExecutionSpace;
  const int n = 32, steps = 400;
  const double amplitude = 0.01, pi = 3.14159265358979323846, k = 2 * pi / n;
  const std::size_t cells = static_cast<std::size_t>(n) * n * n;
  std::vector<double> density(cells, 1.0), velocity(3 * cells, 0.0);
  for (std::size_t c = 0; c < cells; ++c) velocity[3 * c] = amplitude * std::sin(k * (c / n % n));
  pk::lbm::Parameters parameters;
  parameters.tau = 0.8;
  pk::lbm::Solver<Space, double> solver(Space{}, pk::lbm::periodic_box(n, n, n), parameters);
  solver.initialize(density, velocity);
  solver.advance(steps);
  const pk::lbm::HostFields fields = solver.fields();
  double projection = 0;  // the amplitude left: 2/N sum u_x sin(k y)
  for (std::size_t c = 0; c < cells; ++c) projection += fields.velocity[3 * c] * std::sin(k * (c / n % n));
  projection *= 2.0 / static_cast<double>(cells);
  const double expected = amplitude * std::exp(-parameters.viscosity() * k * k * steps);
  const double error = std::fabs(projection / expected - 1);
  std::printf("shear wave after %d steps: amplitude %.6g, expected %.6g (relative error %.2g)\n", steps, projection,
              expected, error);
  return error < 0.02 ? 0 : 1;
}
