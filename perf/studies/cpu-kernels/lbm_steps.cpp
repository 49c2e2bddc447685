// MLUPS of pk::lbm::Solver's steps on the host space (the rows traversal) for the lattices
// named on the command line, e.g. `aa-fp32-256` (a periodic cube) or `ab-fp64-256x16x16`
// (a periodic box that fits the caches): the best of 5 timed batches of about 2e7 updates.
#include <pk/lbm/solver.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace pk::lbm;

template <class Real>
void run(const std::string& name, Streaming streaming, int nx, int ny, int nz) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  Parameters p;
  p.tau = 0.8;
  p.streaming = streaming;
  p.check_interval = 0;
  Solver<Space, Real> solver(Space(), periodic_box(nx, ny, nz), p);
  solver.initialize_with(KOKKOS_LAMBDA(int, int, int y, int, double& density, double(&velocity)[3]) {
    density = 1;
    velocity[0] = 0.01 * sin(6.283185307 * y / ny);
    velocity[1] = velocity[2] = 0;
  });
  const double cells = double(nx) * ny * nz;
  const int steps = std::max(2, 2 * int(1e7 / cells));
  solver.advance(steps);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    Kokkos::fence();
    const auto start = std::chrono::steady_clock::now();
    solver.advance(steps);
    Kokkos::fence();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  solver.check_health();
  std::printf("%s %.1f MLUPS\n", name.c_str(), cells * steps / best * 1e-6);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    char pattern[3] = {}, precision[5] = {};
    int nx = 0, ny = 0, nz = 0;
    const int read = std::sscanf(name.c_str(), "%2[ab]-%4[fp0-9]-%dx%dx%d", pattern, precision, &nx, &ny, &nz);
    if (read == 3) ny = nz = nx;
    if ((read != 3 && read != 5) || nx < 1 || ny < 1 || nz < 1) {
      std::fprintf(stderr, "lbm_steps: %s is not a case such as aa-fp32-256 or ab-fp64-256x16x16\n", argv[i]);
      return 1;
    }
    const Streaming s = std::string(pattern) == "aa" ? Streaming::aa : Streaming::ab;
    const std::string prec = precision;
    if (prec == "fp32")
      run<float>(name, s, nx, ny, nz);
    else if (prec == "fp64")
      run<double>(name, s, nx, ny, nz);
    else
      run<pk::Binary16>(name, s, nx, ny, nz);
  }
}
