// LBM: MLUPS of the D3Q19 BGK solver, A-A and A-B streaming, fp32, fp64 and fp16 storage
// (fp32 arithmetic), on fully
// periodic cubes (every cell does the full update), against the roofline measured in the
// same run: the bandwidth of a copy with the lattice's footprint / bytes per update (19
// populations read + 19 written).
#include "registry.hpp"

#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/core/spaces.hpp>
#include <pk/lbm/memory_plan.hpp>
#include <pk/lbm/solver.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace pk::bench {

namespace {

struct Config {
  pk::lbm::Streaming streaming;
  int storage_bytes;  // 4: fp32, 8: fp64, 2: fp16
};

std::string case_name(pk::lbm::Streaming streaming, const char* precision, int n) {
  std::ostringstream name;
  name << pk::lbm::streaming_name(streaming) << '-' << precision << '-' << n;
  return name.str();
}

template <class Space, class Real>
Result measure(const Space& space, const Context& c, pk::lbm::Streaming streaming, int n) {
  using namespace pk::lbm;
  Parameters p;
  p.tau = 0.8;
  p.streaming = streaming;
  p.check_interval = 0;  // timed steps only
  const Geometry geometry = periodic_box(n, n, n);
  Solver<Space, Real> solver(space, geometry, p);
  // A gentle shear wave, so that the numbers are not a fixed point of the collision.
  solver.initialize_with(KOKKOS_LAMBDA(int, int, int y, int, double& density, double(&velocity)[3]) {
    density = 1;
    velocity[0] = 0.01 * sin(6.283185307 * y / n);
    velocity[1] = velocity[2] = 0;
  });
  const double cells = static_cast<double>(geometry.cell_count());
  // Even step counts (A-A's two kernels in pairs), about 2e7 updates per repeat (tiny: 4
  // steps): a second on a few CPU cores, milliseconds (still >= 2 launches) on a GPU.
  const int steps = c.size == Size::tiny ? 4 : std::max(2, 2 * static_cast<int>(1e7 / cells));
  const int repeats = c.size == Size::tiny ? 2 : 5;
  // The lattices, walls and neighbour words: what a step reads and writes, so a lattice held
  // in a cache is rated against a copy held there too, timed in turn with the steps.
  const double footprint = cells * lattice_bytes_per_cell(p, sizeof(Real));
  const auto beside = time_beside_footprint_copy(space, repeats, footprint, c.copy, [&] { solver.advance(steps); });
  const RepeatedSeconds& timed = beside.first;
  const CopyBandwidth& copy = beside.second;
  const double seconds = timed.median;
  solver.check_health();  // a benchmark of a blown-up flow would be meaningless
  const double mlups = cells * steps / seconds * 1e-6;
  const double bytes = static_cast<double>(Solver<Space, Real>::bytes_per_update);
  const double roofline_mlups = copy.limit_gbs() * 1e3 / bytes;
  Result result{case_name(streaming, precision_name<Real>, n),
                {{"mlups", mlups},
                 {"bytes_per_update", bytes},
                 {"footprint_bytes", footprint},
                 {"copy_bandwidth_gbs", copy.limit_gbs()},
                 {"limit_interleaved", 1.0},  // the copy timed in turn with the kernel
                 {"dram_copy_bandwidth_gbs", c.copy.limit_gbs()},
                 {"roofline_mlups", roofline_mlups},
                 {"roofline_fraction", mlups / roofline_mlups},
                 {"cells", cells},
                 {"steps", double(steps)},
                 {"shifted_storage", solver.shifted_storage() ? 1.0 : 0.0},
                 {"split_by_walls", solver.split_by_walls() ? 1.0 : 0.0},
                 {"streaming_stores", solver.streaming_stores() ? 1.0 : 0.0},
                 {"odd_step_teams", double(solver.odd_step_teams())},
                 {"rows_prefetch_bytes", double(solver.rows_prefetch_bytes())}},
                "mlups",
                "copy bw at the lattice's footprint / bytes per update",
                mlups / roofline_mlups};
  add_repeats(result.metrics, timed);
  return result;
}

}  // namespace

struct LbmBench {
  static constexpr const char* kernel = "lbm";
  static constexpr const char* description =
      "D3Q19 BGK lattice Boltzmann MLUPS, A-A and A-B, fp32, fp64 and fp16 storage, vs copy bandwidth / bytes per "
      "update";

  template <class Space>
  std::vector<Result> run(const Space& space, const Context& c) const {
    using pk::lbm::Streaming;
    std::vector<int> sides;
    if (c.size == Size::tiny) sides = {32};
    if (c.size == Size::small) sides = {64, 128};
    const double budget = 0.8 * pk::available_bytes(space);  // leave room for the runtime and the copy probe
    std::vector<Result> results;
    for (const Config config : {Config{Streaming::aa, 4}, Config{Streaming::ab, 4}, Config{Streaming::aa, 8},
                                Config{Streaming::ab, 8}, Config{Streaming::aa, 2}, Config{Streaming::ab, 2}}) {
      pk::lbm::Parameters parameters;
      parameters.streaming = config.streaming;
      const double per_cell = pk::lbm::lattice_bytes_per_cell(parameters, config.storage_bytes);
      std::vector<int> case_sides = sides;
      if (c.size == Size::full) {
        // 64^3, 128^3, then steps of 128 up to the largest cube that fits, that cube last.
        // Host spaces stop at 512^3 (134 M cells, seconds per case on a few dozen cores):
        // beyond it the cube only adds minutes, not information.
        const int cap = pk::runs_on_host<Space> ? 512 : 1280;
        const int largest = std::min(cap, static_cast<int>(std::cbrt(budget / per_cell)) / 32 * 32);
        for (int n = 64; n <= largest; n = n < 128 ? 2 * n : n + 128) case_sides.push_back(n);
        if (!case_sides.empty() && case_sides.back() != largest && largest >= 64) case_sides.push_back(largest);
      }
      using pk::lbm::precision_name;
      const char* precision = config.storage_bytes == 8   ? precision_name<double>
                              : config.storage_bytes == 2 ? precision_name<pk::Binary16>
                                                          : precision_name<float>;
      for (int n : case_sides) {
        if (pk::interrupted()) break;
        if (per_cell * n * n * n > budget || !c.wants(case_name(config.streaming, precision, n))) continue;
        results.push_back(config.storage_bytes == 8   ? measure<Space, double>(space, c, config.streaming, n)
                          : config.storage_bytes == 2 ? measure<Space, pk::Binary16>(space, c, config.streaming, n)
                                                      : measure<Space, float>(space, c, config.streaming, n));
      }
    }
    return results;
  }
};
PK_REGISTER_BENCHMARK(LbmBench);

}  // namespace pk::bench
