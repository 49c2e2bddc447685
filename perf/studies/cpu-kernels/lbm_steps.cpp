// MLUPS of pk::lbm::Solver's steps on the default execution space (on a host space, the rows
// traversal) for the lattices named on the command line, e.g. `aa-fp32-256` (a periodic cube)
// or `ab-fp64-256x16x16` (a periodic box that fits the caches): the best of 5 timed batches of
// about 2 x UPDATES cell updates (`--updates=UPDATES` first; 1e7 by default). An A-B case may
// name its stores, `ab-fp16-256:cached` or `:streaming` (Parameters::ab_stores); else tuned.
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
void run(const std::string& name, Streaming streaming, AbStores stores, int nx, int ny, int nz, double updates) {
  using Space = Kokkos::DefaultExecutionSpace;
  Parameters p;
  p.tau = 0.8;
  p.streaming = streaming;
  p.ab_stores = stores;
  p.check_interval = 0;
  Solver<Space, Real> solver(Space(), periodic_box(nx, ny, nz), p);
  solver.initialize_with(KOKKOS_LAMBDA(int, int, int y, int, double& density, double(&velocity)[3]) {
    density = 1;
    velocity[0] = 0.01 * sin(6.283185307 * y / ny);
    velocity[1] = velocity[2] = 0;
  });
  const double cells = double(nx) * ny * nz;
  const int steps = std::max(2, 2 * int(updates / cells));
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
  double updates = 1e7;
  int first = 1;
  if (argc > 1 && std::sscanf(argv[1], "--updates=%lf", &updates) == 1) {
    if (!(updates >= 1 && updates <= 1e12)) {
      std::fprintf(stderr, "lbm_steps: --updates takes a count from 1 to 1e12, not %s\n", argv[1] + 10);
      return 1;
    }
    first = 2;
  }
  for (int i = first; i < argc; ++i) {
    const std::string name = argv[i];
    const std::size_t colon = name.find(':');
    const std::string lattice = name.substr(0, colon),
                      stores = colon == std::string::npos ? "" : name.substr(colon + 1);
    char pattern[3] = {}, precision[5] = {};
    int nx = 0, ny = 0, nz = 0;
    const int read = std::sscanf(lattice.c_str(), "%2[ab]-%4[fp0-9]-%dx%dx%d", pattern, precision, &nx, &ny, &nz);
    if (read == 3) ny = nz = nx;
    if ((read != 3 && read != 5) || nx < 1 || ny < 1 || nz < 1) {
      std::fprintf(stderr, "lbm_steps: %s is not a case such as aa-fp32-256 or ab-fp64-256x16x16\n", argv[i]);
      return 1;
    }
    const Streaming s = std::string(pattern) == "aa" ? Streaming::aa : Streaming::ab;
    if (colon != std::string::npos && (s != Streaming::ab || (stores != "cached" && stores != "streaming"))) {
      std::fprintf(stderr, "lbm_steps: %s: only an A-B case names its stores, cached or streaming\n", argv[i]);
      return 1;
    }
    const AbStores ab = stores == "cached"      ? AbStores::cached
                        : stores == "streaming" ? AbStores::streaming
                                                : AbStores::tuned;
    const std::string prec = precision;
    if (prec == "fp32")
      run<float>(name, s, ab, nx, ny, nz, updates);
    else if (prec == "fp64")
      run<double>(name, s, ab, nx, ny, nz, updates);
    else if (prec == "fp16")
      run<pk::Binary16>(name, s, ab, nx, ny, nz, updates);
    else {
      std::fprintf(stderr, "lbm_steps: %s names no precision of fp16, fp32 and fp64\n", argv[i]);
      return 1;
    }
  }
}
