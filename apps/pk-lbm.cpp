// pk-lbm: D3Q19 lattice Boltzmann flow through a box channel or a user's flag field, on one
// or every execution space; VTK output, a summary on stdout and a JSON record.
#include <pk/core/app.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/cli.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/core/results.hpp>
#include <pk/core/session.hpp>
#include <pk/core/space_selection.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/lbm/vti.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <optional>

namespace {

using namespace pk::lbm;

// Keeps a run finite: a billion steps take days even on a small lattice.
constexpr std::int64_t max_steps = 1000000000;

struct Options {
  std::int64_t steps = 1000;
  std::int64_t vti_every = 0;
  std::string out = "pk-lbm-out";
  std::string precision = "fp32";
};

struct Run {
  std::string space;
  HostFields fields;
};

std::string padded(std::int64_t step) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%08lld", static_cast<long long>(step));
  return buffer;
}

// Bytes a run holds per cell: flags and wall masks, the lattice(s), the device field buffer
// and two host copies of the fields (density and velocity in double).
double planned_bytes(const Geometry& geometry, const Parameters& parameters, std::size_t storage_bytes) {
  const int lattices = parameters.streaming == Streaming::ab ? 2 : 1;
  return static_cast<double>(geometry.cell_count()) * (5 + 19.0 * storage_bytes * lattices + 32 + 2 * 32);
}

template <class Space, class Real>
Run run(const Space& space, const Geometry& geometry, const Parameters& parameters, const Options& options,
        const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  pk::require_memory(space, planned_bytes(geometry, parameters, sizeof(Real)),
                     "a lattice of " + std::to_string(geometry.cell_count()) + " cells");
  Solver<Space, Real> solver(space, geometry, parameters);
  const std::int64_t active = geometry.active_cell_count();
  auto write_vti_now = [&] {
    const std::string path = options.out + "/lbm-" + name + "-" + padded(solver.step_count()) + ".vti";
    write_vti(path, geometry, solver.fields());
  };
  if (options.vti_every > 0) write_vti_now();

  double compute_seconds = 0, last_report = 0;
  bool reported = false;
  Kokkos::Timer wall;
  std::int64_t chunk = 1;  // grows until a chunk takes about 0.2 s, for progress and output
  while (solver.step_count() < options.steps && !pk::interrupted()) {
    std::int64_t n = std::min(chunk, options.steps - solver.step_count());
    if (options.vti_every > 0) n = std::min(n, options.vti_every - solver.step_count() % options.vti_every);
    Kokkos::Timer timer;
    solver.advance(n);
    space.fence();
    const double t = timer.seconds();
    compute_seconds += t;
    if (t < 0.2 && chunk < options.steps) chunk *= 2;  // bounded: n may stay below chunk (VTK steps)
    if (options.vti_every > 0 && solver.step_count() % options.vti_every == 0) write_vti_now();
    if (wall.seconds() - last_report > 1.0) {  // long runs: progress on one line
      last_report = wall.seconds();
      reported = true;
      std::fprintf(stderr, "\r%s: step %lld / %lld (%.0f %%), %.1f MLUPS   ", name.c_str(),
                   static_cast<long long>(solver.step_count()), static_cast<long long>(options.steps),
                   100.0 * solver.step_count() / options.steps, active * 1e-6 * solver.step_count() / compute_seconds);
    }
  }
  if (reported) std::fprintf(stderr, "\n");
  if (options.vti_every > 0 && solver.step_count() % options.vti_every != 0) write_vti_now();

  const std::int64_t steps = solver.step_count();  // fewer than asked when interrupted
  HostFields fields = solver.fields();
  const double mlups = compute_seconds > 0 ? active * 1e-6 * steps / compute_seconds : 0;
  const double mass = std::accumulate(fields.density.begin(), fields.density.end(), 0.0);
  const double speed = max_speed(fields);
  pk::require(!std::isnan(speed), name + ": the velocity is NaN after " + std::to_string(steps) +
                                      " steps: the flow became unstable (--check-every finds where)");
  std::printf("%s: %lld steps of %d x %d x %d (%lld active cells, %s, %s) in %.3f s: %.2f MLUPS; max |u| %.4g%s\n",
              name.c_str(), static_cast<long long>(steps), geometry.nx(), geometry.ny(), geometry.nz(),
              static_cast<long long>(active), streaming_name(parameters.streaming), options.precision.c_str(),
              compute_seconds, mlups, speed, pk::interrupted() ? " (interrupted)" : "");
  pk::ResultRecord record{"lbm",
                          std::string(streaming_name(parameters.streaming)) + "-" + options.precision + "-" +
                              std::to_string(geometry.nx()) + "x" + std::to_string(geometry.ny()) + "x" +
                              std::to_string(geometry.nz()),
                          name,
                          pk::describe_device(space),
                          command,
                          {{"steps", double(steps)},
                           {"active_cells", double(active)},
                           {"wall_seconds", compute_seconds},
                           {"mlups", mlups},
                           {"max_speed", speed},
                           {"mean_density", active > 0 ? mass / active : 0},
                           {"tau", parameters.tau}},
                          pk::interrupted()};
  const std::string path = pk::write_result(record, options.out);
  std::cout << "  wrote " << path << '\n';
  return {name, std::move(fields)};
}

}  // namespace

int main(int argc, char** argv) {
  return pk::run_app("pk-lbm", [&] {
    Options options;
    Parameters parameters;
    parameters.inlet_density = 1.001;
    parameters.outlet_density = 0.999;
    std::string space_request = "all", pattern = "aa", flag_file;
    std::vector<int> channel = {64, 32, 32};
    CLI::App cli{"D3Q19 lattice Boltzmann (BGK) flow, A-A or A-B streaming, on OpenMP and/or CUDA. Lattice units."};
    cli.add_option("--space", space_request, "openmp, cuda, a comma-separated list, or all (those that can run here)");
    auto* channel_option = cli.add_option("--channel", channel, "box channel LENGTH WIDTH HEIGHT in fluid cells (flow along x)")
                               ->expected(3);
    cli.add_option("--flag-file", flag_file, "flag field file instead of the channel (format: include/pk/lbm/geometry.hpp)")
        ->excludes(channel_option);
    cli.add_option("--steps", options.steps, "time steps")->capture_default_str();
    cli.add_option("--tau", parameters.tau, "BGK relaxation time (> 0.5); viscosity (tau - 0.5) / 3")->capture_default_str();
    cli.add_option("--inlet-density", parameters.inlet_density, "density prescribed on inlet cells")->capture_default_str();
    cli.add_option("--outlet-density", parameters.outlet_density, "density prescribed on outlet cells")->capture_default_str();
    cli.add_option("--pattern", pattern, "streaming: aa (one lattice) or ab (two lattices)")
        ->check(CLI::IsMember({"aa", "ab"}))->capture_default_str();
    cli.add_option("--precision", options.precision, "storage: fp32, fp64, or fp16 (computing in fp32)")
        ->check(CLI::IsMember({"fp32", "fp64", "fp16"}))->capture_default_str();
    cli.add_option("--max-mach", parameters.max_mach, "largest |u| / c_s allowed, checked before and during the run")
        ->capture_default_str();
    cli.add_option("--check-every", parameters.check_interval, "steps between NaN/density/Mach checks (0: never)")
        ->capture_default_str();
    cli.add_option("--vti-every", options.vti_every, "write VTK image data every N steps (0: never)")->capture_default_str();
    cli.add_option("--out", options.out, "directory for .vti files and the JSON summary")->capture_default_str();
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;

    // Everything is checked before Kokkos starts.
    pk::require(options.steps >= 1 && options.steps <= max_steps,
                "--steps " + std::to_string(options.steps) + ": need 1 to " + std::to_string(max_steps) + " steps");
    pk::require(options.vti_every >= 0, "--vti-every " + std::to_string(options.vti_every) + " must be >= 0");
    parameters.streaming = pattern == "ab" ? Streaming::ab : Streaming::aa;
    parameters.initial_density = 0.5 * (parameters.inlet_density + parameters.outlet_density);
    const Geometry geometry = flag_file.empty() ? box_channel(channel[0], channel[1], channel[2]) : read_flag_file(flag_file);
    geometry.validate();
    validate(parameters, geometry);
    const auto spaces = pk::select_spaces(space_request);
    pk::make_directories(options.out);

    pk::Session session(*kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    std::vector<Run> runs;
    pk::for_each_selected_space(spaces, [&](const auto& space) {
      using Space = std::decay_t<decltype(space)>;
      if (pk::interrupted()) return;
      runs.push_back(options.precision == "fp64"   ? run<Space, double>(space, geometry, parameters, options, command)
                     : options.precision == "fp16" ? run<Space, pk::Binary16>(space, geometry, parameters, options, command)
                                                   : run<Space, float>(space, geometry, parameters, options, command));
    });
    for (std::size_t i = 1; i < runs.size(); ++i)
      std::printf("max |u_%s - u_%s| = %.3e (max |u| %.3e)\n", runs[i].space.c_str(), runs[0].space.c_str(),
                  max_velocity_difference(runs[i].fields, runs[0].fields), max_speed(runs[0].fields));
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
