// Cells/s of pk::gbees::Solver on the default execution space for the cases named on the
// command line: `lorenz63` (the paper's case without its measurement, to t = 1; the best of 5
// runs) and `lorenz96` (n = 6, F = 4, to t = 0.1, 3 runs; `lorenz96:T` to t = T), timed from the
// solver's construction as pk-bench times them, each with the share of its time in each kernel
// (Kokkos' profiling hooks, summed over the runs).
#include <pk/gbees/solver.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Seconds spent in each kernel label while `counting` is set (kernels on a host space run
// to completion before the next begins, so begin and end bracket a kernel's work).
struct KernelTimes {
  std::map<std::string, double> seconds;
  std::vector<std::pair<std::string, Clock::time_point>> open;
  bool counting = false;
};
KernelTimes times;

void begin_kernel(const char* name, std::uint32_t, std::uint64_t* id) {
  *id = times.open.size();
  times.open.emplace_back(name, Clock::now());
}
void end_kernel(std::uint64_t id) {
  const auto& [name, start] = times.open.at(id);
  if (times.counting) times.seconds[name] += std::chrono::duration<double>(Clock::now() - start).count();
  if (id + 1 == times.open.size()) times.open.pop_back();
}

template <class Model>
void run(const std::string& name, const Model& model, pk::gbees::Parameters p, int runs) {
  using Space = Kokkos::DefaultExecutionSpace;
  times.seconds.clear();
  double best = 0, total = 0, set_up = 0;
  for (int r = 0; r < runs; ++r) {
    Kokkos::fence();
    times.counting = true;
    const auto start = Clock::now();
    pk::gbees::Solver<Space, Model> solver(Space(), model, p);
    Kokkos::fence();
    const auto made = Clock::now();
    solver.run();
    Kokkos::fence();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    times.counting = false;
    total += seconds;
    set_up += std::chrono::duration<double>(made - start).count();
    best = std::max(best, solver.statistics().cell_steps / seconds);
  }
  std::printf("gbees-%s %.4g cells/s (%.1f %% of the time setting up)\n", name.c_str(), best, 100 * set_up / total);
  std::vector<std::pair<double, std::string>> shares;
  for (const auto& [label, seconds] : times.seconds) shares.emplace_back(seconds / total, label);
  std::sort(shares.rbegin(), shares.rend());
  for (const auto& [share, label] : shares)
    if (share >= 0.005) std::printf("  %5.1f %%  %s\n", 100 * share, label.c_str());
}

// T of a case `lorenz96:T`, or 0 where the case is not one (or T is not a positive number).
double end_time_of(const std::string& arg) {
  const std::string prefix = "lorenz96:";
  if (arg.rfind(prefix, 0) != 0) return 0;
  char* end = nullptr;
  const double t = std::strtod(arg.c_str() + prefix.size(), &end);
  return end != arg.c_str() + prefix.size() && *end == '\0' && t > 0 ? t : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(begin_kernel);
  Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(begin_kernel);
  Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(begin_kernel);
  Kokkos::Tools::Experimental::set_end_parallel_for_callback(end_kernel);
  Kokkos::Tools::Experimental::set_end_parallel_reduce_callback(end_kernel);
  Kokkos::Tools::Experimental::set_end_parallel_scan_callback(end_kernel);
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "lorenz63") {
      auto p = pk::gbees::lorenz63_paper();
      p.measurements.clear();
      p.end_time = 1;
      run(arg, pk::gbees::Lorenz63{}, p, 5);
    } else if (const double end = arg == "lorenz96" ? 0.1 : end_time_of(arg); end > 0) {
      auto p = pk::gbees::lorenz96_paper(6, 4);
      p.end_time = end;
      run(arg, pk::gbees::Lorenz96{6, 4}, p, 3);
    } else {
      std::fprintf(stderr, "gbees_steps: unknown case '%s' (lorenz63, lorenz96 or lorenz96:T, T > 0)\n", arg.c_str());
      return 2;
    }
  }
}
