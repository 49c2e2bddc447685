// Experiment (removed in the next commit): fp32 and fp16 A-A MLUPS on the default device for each forced step plan:
// plain storage with one or two cells per thread in the even and odd steps, shifted storage; see
// perf/results/lbm-step-cells/README.md for how it was built and run.
#include <pk/core/timing.hpp>
#include <pk/lbm/solver.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>

template <class Real>
void run(int n, pk::lbm::AaStorage storage, int even_cells, int odd_cells, int odd_teams) {
  using namespace pk::lbm;
  using Space = Kokkos::DefaultExecutionSpace;
  Parameters p;
  p.check_interval = 0;
  p.aa_storage = storage;
  p.aa_even_step_cells = even_cells;
  p.aa_odd_step_cells = odd_cells;
  p.aa_odd_step_teams = odd_teams;
  const Geometry g = periodic_box(n, n, n);
  Solver<Space, Real> solver(Space{}, g, p);
  solver.initialize_with(KOKKOS_LAMBDA(int, int, int y, int, double& density, double(&velocity)[3]) {
    density = 1;
    velocity[0] = 0.01 * sin(6.283185307 * y / n);
    velocity[1] = velocity[2] = 0;
  });
  const double cells = double(g.cell_count());
  const int steps = std::max(2, 2 * int(2e7 / cells));
  solver.advance(2);
  const double s = pk::median_seconds(Space{}, 7, [&] { solver.advance(steps); });
  std::printf("%s n=%d %s even_cells=%d odd_cells=%d odd_teams=%d: %.0f MLUPS (%.3f ms/pair)\n", precision_name<Real>, n,
              solver.shifted_storage() ? "shifted" : "plain", solver.even_step_cells(), solver.odd_step_cells(), solver.odd_step_teams(),
              cells * steps / s * 1e-6, 2 * s / steps * 1e3);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  using pk::lbm::AaStorage;
  for (int n : {256, 512, 1024}) {
    for (int teams : {8, 10}) {
      for (int even : {1, 2})
        for (int odd : {1, 2}) run<float>(n, AaStorage::plain, even, odd, teams);
      run<float>(n, AaStorage::shifted, 1, 1, teams);
    }
    run<pk::Binary16>(n, AaStorage::plain, 1, 1, 8);
    run<pk::Binary16>(n, AaStorage::plain, 2, 1, 8);
  }
}
