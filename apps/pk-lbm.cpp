// pk-lbm: D3Q19 lattice Boltzmann flow through a box channel or a user's flag field, on one
// or every execution space; VTK output, a summary on stdout and a JSON record. Built with
// MPI and started on several ranks (mpirun -np N pk-lbm ...), it splits the lattice into
// slabs, one per rank, and writes a .pvti with one .vti piece per rank.
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

#if PK_ENABLE_MPI
#include <pk/lbm/distributed_solver.hpp>
#include <pk/mpi/program.hpp>
#endif

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
                           {"tau", parameters.tau},
                           {"shifted_storage", solver.shifted_storage() ? 1.0 : 0.0}},
                          pk::interrupted()};
  const std::string path = pk::write_result(record, options.out);
  std::cout << "  wrote " << path << '\n';
  return {name, std::move(fields)};
}

// The command line, checked before Kokkos starts.
struct Setup {
  Options options;
  Parameters parameters;
  Geometry geometry;
  std::vector<std::string> spaces;
  std::vector<std::string> kokkos_args;
};

// Nothing when --help was answered; pk::Error for bad input.
std::optional<Setup> parse(int argc, char** argv) {
  Options options;
  Parameters parameters;
  parameters.inlet_density = 1.001;
  parameters.outlet_density = 0.999;
  std::string space_request = "all", pattern = "aa", flag_file;
  std::vector<int> channel = {64, 32, 32};
  CLI::App cli{"D3Q19 lattice Boltzmann (BGK) flow, A-A or A-B streaming, on OpenMP and/or CUDA. Lattice units."};
  cli.add_option("--space", space_request,
                 pk::backend_choices() + ", a comma-separated list, or all (those that can run here)");
  auto* channel_option =
      cli.add_option("--channel", channel, "box channel LENGTH WIDTH HEIGHT in fluid cells (flow along x)")
          ->expected(3);
  cli.add_option("--flag-file", flag_file,
                 "flag field file instead of the channel (format: include/pk/lbm/geometry.hpp)")
      ->excludes(channel_option);
  cli.add_option("--steps", options.steps, "time steps")->capture_default_str();
  cli.add_option("--tau", parameters.tau, "BGK relaxation time (> 0.5); viscosity (tau - 0.5) / 3")
      ->capture_default_str();
  cli.add_option("--inlet-density", parameters.inlet_density, "density prescribed on inlet cells")
      ->capture_default_str();
  cli.add_option("--outlet-density", parameters.outlet_density, "density prescribed on outlet cells")
      ->capture_default_str();
  cli.add_option("--pattern", pattern, "streaming: aa (one lattice) or ab (two lattices)")
      ->check(CLI::IsMember({"aa", "ab"}))
      ->capture_default_str();
  cli.add_option("--precision", options.precision,
                 "storage: fp32, fp64, fp16 or fp16c (16 bits, 11 of mantissa; both computing in fp32)")
      ->check(CLI::IsMember({"fp32", "fp64", "fp16", "fp16c"}))
      ->capture_default_str();
  cli.add_option("--max-mach", parameters.max_mach, "largest |u| / c_s allowed, checked before and during the run")
      ->capture_default_str();
  cli.add_option("--check-every", parameters.check_interval, "steps between NaN/density/Mach checks (0: never)")
      ->capture_default_str();
  cli.add_option("--vti-every", options.vti_every, "write VTK image data every N steps (0: never)")
      ->capture_default_str();
  cli.add_option("--out", options.out, "directory for .vti files and the JSON summary")->capture_default_str();
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;

  pk::require(options.steps >= 1 && options.steps <= max_steps,
              "--steps " + std::to_string(options.steps) + ": need 1 to " + std::to_string(max_steps) + " steps");
  pk::require(options.vti_every >= 0, "--vti-every " + std::to_string(options.vti_every) + " must be >= 0");
  parameters.streaming = pattern == "ab" ? Streaming::ab : Streaming::aa;
  parameters.initial_density = 0.5 * (parameters.inlet_density + parameters.outlet_density);
  Geometry geometry = flag_file.empty() ? box_channel(channel[0], channel[1], channel[2]) : read_flag_file(flag_file);
  geometry.validate();
  validate(parameters, geometry);
  auto spaces = pk::select_spaces(space_request);
  pk::make_directories(options.out);
  return Setup{options, parameters, std::move(geometry), std::move(spaces), *kokkos_args};
}

// Calls run<Space, Real>() with the storage type the options name.
template <class F>
auto with_precision(const Options& options, F&& run) {
  if (options.precision == "fp64") return run(double{});
  if (options.precision == "fp16") return run(pk::Binary16{});
  if (options.precision == "fp16c") return run(pk::Compact16{});
  return run(float{});
}

#if PK_ENABLE_MPI
// Writes this rank's slab (and the next rank's first layer) as a .vti piece and, from rank 0,
// the .pvti that names them all.
template <class Solver>
void write_pieces(const pk::mpi::Communicator& world, const Solver& solver, const std::string& out,
                  const std::string& stem) {
  const auto piece_name = [&](int rank) { return stem + "-" + std::to_string(rank) + ".vti"; };
  const HostFields fields = solver.piece_fields();
  pk::mpi::collectively(world, [&] {
    write_vti_piece(out + "/" + piece_name(world.rank()), solver.geometry(), solver.slab_origin(), fields);
  });
  pk::mpi::collectively(world, [&] {
    if (world.rank() != 0) return;
    std::vector<Piece> pieces;
    std::vector<std::string> files;
    for (int rank = 0; rank < world.size(); ++rank) {
      const Slab slab = slab_of(solver.geometry(), world.size(), rank);
      Piece piece{{0, 0, 0}, {solver.geometry().nx(), solver.geometry().ny(), solver.geometry().nz()}};
      piece.origin[slab.axis] = slab.begin;
      piece.size[slab.axis] = slab.layers() + (rank < world.size() - 1 ? 1 : 0);  // pieces share boundary points
      pieces.push_back(piece);
      files.push_back(piece_name(rank));
    }
    write_pvti(out + "/" + stem + ".pvti", solver.geometry(), fields.step, pieces, files);
  });
}

template <class Space, class Real>
Run run_distributed(const pk::mpi::Communicator& world, const Space& space, const Setup& setup,
                    const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const Options& options = setup.options;
  const Geometry& geometry = setup.geometry;
  pk::mpi::collectively(world, [&] {  // a rank's share of the lattice, its two ghost layers aside
    pk::require_memory(space, planned_bytes(geometry, setup.parameters, sizeof(Real)) / world.size(),
                       "a slab of " + std::to_string(geometry.cell_count() / world.size()) + " cells");
  });
  DistributedSolver<Space, Real> solver(world, space, geometry, setup.parameters);
  const auto write_now = [&] {
    const std::string stem = "lbm-" + name + "-" + padded(solver.step_count());
    write_pieces(world, solver, options.out, stem);
    if (world.rank() == 0) std::cout << "  wrote " << options.out + "/" + stem + ".pvti" << '\n';
  };
  if (options.vti_every > 0) write_now();
  double compute_seconds = 0;
  const double exchange_before = solver.exchange_seconds();  // the first exchange also connects the ranks
  while (solver.step_count() < options.steps) {
    std::int64_t n = options.steps - solver.step_count();
    if (options.vti_every > 0) n = std::min(n, options.vti_every - solver.step_count() % options.vti_every);
    Kokkos::Timer timer;
    solver.advance(n);
    space.fence();
    compute_seconds += timer.seconds();
    if (options.vti_every > 0 && solver.step_count() % options.vti_every == 0) write_now();
  }
  if (options.vti_every > 0 && solver.step_count() % options.vti_every != 0) write_now();

  // The slowest rank sets the pace.
  const double seconds = world.max(compute_seconds),
               exchange_share = world.max((solver.exchange_seconds() - exchange_before) / compute_seconds);
  HostFields fields = solver.fields();
  const std::int64_t active = geometry.active_cell_count();
  const double mlups = seconds > 0 ? active * 1e-6 * options.steps / seconds : 0;
  const double mass = world.sum(std::accumulate(fields.density.begin(), fields.density.end(), 0.0));
  const double speed = world.max(max_speed(fields));
  const char* axis_name[] = {"x", "y", "z"};
  if (world.rank() == 0) {
    std::printf(
        "%s: %lld steps of %d x %d x %d (%lld active cells, %s, %s) on %d ranks (slabs along %s) in %.3f s: "
        "%.2f MLUPS, %.2f per rank, %.1f %% of the time in the exchange%s; max |u| %.4g\n",
        name.c_str(), static_cast<long long>(options.steps), geometry.nx(), geometry.ny(), geometry.nz(),
        static_cast<long long>(active), streaming_name(setup.parameters.streaming), options.precision.c_str(),
        world.size(), axis_name[solver.slab().axis], seconds, mlups, mlups / world.size(), 100 * exchange_share,
        solver.staged() ? " (staged through host buffers)" : "", speed);
    pk::ResultRecord record{"lbm",
                            std::string(streaming_name(setup.parameters.streaming)) + "-" + options.precision + "-" +
                                std::to_string(geometry.nx()) + "x" + std::to_string(geometry.ny()) + "x" +
                                std::to_string(geometry.nz()) + "-np" + std::to_string(world.size()),
                            name,
                            pk::describe_device(space),
                            command,
                            {{"steps", double(options.steps)},
                             {"active_cells", double(active)},
                             {"ranks", double(world.size())},
                             {"cells_per_rank", double(active) / world.size()},
                             {"wall_seconds", seconds},
                             {"mlups", mlups},
                             {"mlups_per_rank", mlups / world.size()},
                             {"exchange_share", exchange_share},
                             {"staged_exchange", solver.staged() ? 1.0 : 0.0},
                             {"max_speed", speed},
                             {"mean_density", active > 0 ? mass / active : 0},
                             {"tau", setup.parameters.tau},
                             {"shifted_storage", solver.shifted_storage() ? 1.0 : 0.0}}};  // rank 0's
    std::cout << "  wrote " << pk::write_result(record, options.out) << '\n';
  }
  return {name, std::move(fields)};
}

// pk-lbm on several ranks: every rank steps its slab.
int run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  std::vector<Run> runs;
  pk::for_each_selected_space(setup.spaces, [&](const auto& space) {
    using Space = std::decay_t<decltype(space)>;
    runs.push_back(with_precision(setup.options, [&](auto real) {
      return run_distributed<Space, decltype(real)>(world, space, setup, command);
    }));
  });
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double difference = world.max(max_velocity_difference(runs[i].fields, runs[0].fields));
    if (world.rank() == 0)
      std::printf("max |u_%s - u_%s| = %.3e\n", runs[i].space.c_str(), runs[0].space.c_str(), difference);
  }
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if PK_ENABLE_MPI
  pk::mpi::Environment mpi(argc, argv);
  if (mpi.ranks() > 1) return pk::mpi::run_program("pk-lbm", argc, argv, parse, run_ranks);
#endif
  return pk::run_app("pk-lbm", [&] {
    // Everything is checked before Kokkos starts.
    const std::optional<Setup> setup = parse(argc, argv);
    if (!setup) return 0;
    pk::Session session(setup->kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    std::vector<Run> runs;
    pk::for_each_selected_space(setup->spaces, [&](const auto& space) {
      using Space = std::decay_t<decltype(space)>;
      if (pk::interrupted()) return;
      runs.push_back(with_precision(setup->options, [&](auto real) {
        return run<Space, decltype(real)>(space, setup->geometry, setup->parameters, setup->options, command);
      }));
    });
    for (std::size_t i = 1; i < runs.size(); ++i)
      std::printf("max |u_%s - u_%s| = %.3e (max |u| %.3e)\n", runs[i].space.c_str(), runs[0].space.c_str(),
                  max_velocity_difference(runs[i].fields, runs[0].fields), max_speed(runs[0].fields));
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
