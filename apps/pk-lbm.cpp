// pk-lbm: D3Q19 lattice Boltzmann flow through a box channel or a user's flag field, on one
// or every execution space; VTK output, a summary on stdout and a JSON record. Built with
// MPI and started on several ranks (mpirun -np N pk-lbm ...), it splits the lattice into
// slabs, one per rank, and writes a .pvti with one .vti piece per rank. Checkpoints and
// restarts (--checkpoint, --restart) continue a run bit for bit (docs/jobs.md).
#include <pk/app/cli.hpp>
#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/checkpoint.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/lbm/checkpoint.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/memory_plan.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/lbm/vti.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include <sys/resource.h>

#if PK_ENABLE_MPI
#include <pk/app/mpi_program.hpp>
#include <pk/lbm/distributed_solver.hpp>
#endif
#if PK_ENABLE_HDF5
#include <pk/hdf5/fields.hpp>
#else
#define PK_ENABLE_HDF5 0
#endif

namespace {

using namespace pk::lbm;

// Keeps a run finite: a billion steps take days even on a small lattice.
constexpr std::int64_t max_steps = 1000000000;

struct Options {
  std::int64_t steps = 1000;
  std::int64_t vti_every = 0;
  std::int64_t h5_every = 0;
  std::string out = "pk-lbm-out";
  std::string precision = "fp32";
  SlabAxis slab_axis = SlabAxis::automatic;
  pk::CheckpointOptions checkpoint;
  bool compare_spaces = false;  // several spaces: each run returns its fields for the comparison
};

struct Run {
  std::string space;
  HostFields fields;
  bool stopped = false;  // by SIGINT or SIGTERM (on some rank)
};

// The header of this run's checkpoints, before the solver's state is added.
pk::CheckpointHeader run_header(const std::string& space, const Geometry& geometry, const Parameters& parameters,
                                const Options& options) {
  pk::CheckpointHeader header;
  header.program = "pk-lbm";
  header.space = space;
  add_run_options(header, geometry, parameters, options.precision);
  return header;
}

// The checkpoint figures of a run's record, and a line on stdout: the last checkpoint's
// size, write time and the host memory it took besides the run's own (one direction's
// buffer on a device space, none on a host one), and the process's peak resident memory.
template <class Solver>
void report_checkpoints(const pk::CheckpointFiles& files, const Solver& solver, std::map<std::string, double>& metrics,
                        bool print) {
  if (files.written() == 0) return;
  using Storage = typename Solver::storage_type;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Solver::memory_space>::accessible;
  const double buffer = on_host ? 0.0 : static_cast<double>(solver.lattice().extent(0) * sizeof(Storage));
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  metrics["checkpoints"] = files.written();
  metrics["checkpoint_bytes"] = static_cast<double>(files.last_bytes());
  metrics["checkpoint_seconds"] = files.last_seconds();
  metrics["checkpoint_host_buffer_bytes"] = buffer;
  metrics["peak_host_resident_bytes"] = 1024.0 * usage.ru_maxrss;
  if (print)
    std::printf("  checkpoints: %d written to %s, the last %.4g GB in %.3f s (%.3g GB/s), host buffer %.3g GB\n",
                files.written(), files.path().c_str(), files.last_bytes() / 1e9, files.last_seconds(),
                files.last_bytes() / 1e9 / files.last_seconds(), buffer / 1e9);
}

// Whether fields are written at `step` every `every` steps (0: never): at a multiple, at the
// run's start (not a restart's), and at its end when that is not a multiple.
enum class When { start, step, end };
bool fields_due(std::int64_t every, std::int64_t step, When when) {
  if (every <= 0) return false;
  return when == When::start || (step % every == 0) == (when == When::step);
}
// Steps from `step` to the next multiple of `every`, at most n.
std::int64_t until_next(std::int64_t every, std::int64_t step, std::int64_t n) {
  return every > 0 ? std::min(n, every - step % every) : n;
}

#if PK_ENABLE_HDF5
// Writes `fields`, the box of the lattice at `origin`, to the step's .h5 and its .xmf, every
// rank its box (comm: nullptr for one process).
void write_h5(const pk::mpi::Communicator* comm, const std::string& path, const Geometry& geometry,
              const std::array<int, 3>& origin, const HostFields& fields) {
  std::vector<std::uint8_t> types;
  for (int z = 0; z < fields.nz; ++z)
    for (int y = 0; y < fields.ny; ++y)
      for (int x = 0; x < fields.nx; ++x)
        types.push_back(static_cast<std::uint8_t>(geometry.at(origin[0] + x, origin[1] + y, origin[2] + z)));
  pk::hdf5::write_fields(comm, path, {geometry.nx(), geometry.ny(), geometry.nz()},
                         {origin, {fields.nx, fields.ny, fields.nz}},
                         {{"density", 1, fields.density.data()},
                          {"velocity", 3, fields.velocity.data()},
                          {"cell_type", 1, nullptr, types.data()}},
                         fields.step);
}
#endif

std::string padded(std::int64_t step) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%08lld", static_cast<long long>(step));
  return buffer;
}

// What to lower when a lattice at `per_cell` bytes a cell does not fit: how many cells fit
// (on `ranks` ranks) and the options that take less.
pk::MemoryAdvice smaller_lattice(double per_cell, const Parameters& parameters, std::size_t storage_bytes,
                                 int ranks = 1) {
  return [=](double bytes) {
    return "about " + std::to_string(static_cast<long long>(bytes * ranks / per_cell)) + " cells fit" +
           (ranks > 1 ? " on " + std::to_string(ranks) + " ranks" : "") +
           ": use a smaller lattice (--channel, --flag-file)" +
           (storage_bytes > 2 ? ", 16-bit storage (--precision fp16c)" : "") +
           (parameters.streaming == Streaming::ab ? ", one lattice (--pattern aa)" : "") +
           (ranks > 1 ? " or more ranks" : "");
  };
}

// Whether the run reads its fields to the host: to write them, or to compare spaces (the
// summary is reduced on the space).
bool fields_on_host(const Options& options) {
  return options.vti_every > 0 || options.h5_every > 0 || options.compare_spaces;
}

// Bytes a cell of a lattice of `cells` cells takes in the memory of `Space` (with the
// fields' host copy where that is the same memory and the run reads them).
template <class Space>
double bytes_per_cell(std::int64_t cells, const Parameters& parameters, std::size_t storage_bytes,
                      const Options& options) {
  const pk::lbm::MemoryPlan plan = pk::lbm::memory_plan(cells, parameters, storage_bytes);
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  return (host && fields_on_host(options) ? plan.device + plan.host : plan.device) / static_cast<double>(cells);
}

// Refuses a lattice of `cells` cells (a rank's share on several ranks) that does not fit
// the space, or the host that receives its fields.
template <class Space>
void require_lattice_memory(const Space& space, std::int64_t cells, const Parameters& parameters,
                            std::size_t storage_bytes, const Options& options, int ranks = 1) {
  const std::string what = (ranks > 1 ? "a slab of " : "a lattice of ") + std::to_string(cells) + " cells";
  const double per_cell = bytes_per_cell<Space>(cells, parameters, storage_bytes, options);
  pk::require_memory(space, per_cell * static_cast<double>(cells), what,
                     smaller_lattice(per_cell, parameters, storage_bytes, ranks));
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible ||
      !fields_on_host(options))
    return;
  const double host = pk::lbm::memory_plan(cells, parameters, storage_bytes).host;
  pk::require_memory(Kokkos::DefaultHostExecutionSpace{}, host, what + "'s fields on the host",
                     smaller_lattice(host / static_cast<double>(cells), parameters, storage_bytes, ranks));
}

template <class Space, class Real>
Run run(const Space& space, const Geometry& geometry, const Parameters& parameters, const Options& options,
        const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  require_lattice_memory(space, geometry.cell_count(), parameters, sizeof(Real), options);
  // On a device, the memory the solver holds is measured, as what it leaves free: the figure
  // that says how large a lattice fits, beside the plan that refuses larger ones.
  constexpr bool on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  const double free_before = on_device ? pk::available_bytes(space) : 0;
  const pk::CheckpointHeader header = run_header(name, geometry, parameters, options);
  pk::CheckpointFiles files(options.checkpoint.path, 1, 0);
  const bool restart = !options.checkpoint.restart.empty();
  Solver<Space, Real> solver(
      space, geometry,
      restart ? restart_parameters(parameters, files.peek(options.checkpoint.restart, header)) : parameters);
  if (restart)
    files.read(options.checkpoint.restart, header, [&](pk::CheckpointReader& r) { read_lattice(r, solver); });
  const auto write_checkpoint = [&] {
    if (options.checkpoint.path.empty()) return;
    pk::CheckpointHeader now = header;
    now.step = solver.step_count();
    describe_state(now, solver);
    files.write(now, [&](pk::CheckpointWriter& w) { write_lattice(w, solver); });
  };
  const std::int64_t start_step = solver.step_count();
  pk::CheckpointSchedule schedule(options.checkpoint, start_step);
  bool stopped = false;
  const std::int64_t active = geometry.active_cell_count();
  const auto write_fields = [&](When when) {
    const std::string stem = options.out + "/lbm-" + name + "-" + padded(solver.step_count());
    if (fields_due(options.vti_every, solver.step_count(), when)) write_vti(stem + ".vti", geometry, solver.fields());
#if PK_ENABLE_HDF5
    if (fields_due(options.h5_every, solver.step_count(), when))
      write_h5(nullptr, stem + ".h5", geometry, {0, 0, 0}, solver.fields());
#endif
  };
  if (!restart) write_fields(When::start);

  double compute_seconds = 0, last_report = 0;
  bool reported = false;
  Kokkos::Timer wall;
  std::int64_t chunk = 1;  // grows until a chunk takes about 0.2 s, for progress and output
  while (solver.step_count() < options.steps && !stopped) {
    std::int64_t n = std::min(chunk, options.steps - solver.step_count());
    n = until_next(options.h5_every, solver.step_count(), until_next(options.vti_every, solver.step_count(), n));
    n = schedule.steps_to_next(solver.step_count(), n);
    Kokkos::Timer timer;
    solver.advance(n);
    space.fence();
    const double t = timer.seconds();
    compute_seconds += t;
    if (t < 0.2 && chunk < options.steps) chunk *= 2;  // bounded: n may stay below chunk (VTK steps)
    write_fields(When::step);
    const unsigned due = schedule.due(solver.step_count());
    if (due & pk::CheckpointSchedule::checkpoint) write_checkpoint();
    stopped = due & pk::CheckpointSchedule::stop;
    if (wall.seconds() - last_report > 1.0) {  // long runs: progress on one line
      last_report = wall.seconds();
      reported = true;
      std::fprintf(stderr, "\r%s: step %lld / %lld (%.0f %%), %.1f MLUPS   ", name.c_str(),
                   static_cast<long long>(solver.step_count()), static_cast<long long>(options.steps),
                   100.0 * solver.step_count() / options.steps,
                   active * 1e-6 * (solver.step_count() - start_step) / compute_seconds);
    }
  }
  if (reported) std::fprintf(stderr, "\n");
  write_fields(When::end);
  write_checkpoint();  // where the run ends or stopped (none when that one exists)

  const std::int64_t steps = solver.step_count();  // fewer than asked when interrupted
  // This process's steps: a restarted run's started at the checkpoint.
  const double mlups = compute_seconds > 0 ? active * 1e-6 * (steps - start_step) / compute_seconds : 0;
  const FlowSummary summary = solver.summary();
  const double mass = summary.mass, speed = summary.max_speed;
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
  if (on_device) {
    const double cells = static_cast<double>(geometry.cell_count());
    const double measured = (free_before - pk::available_bytes(space)) / cells;
    const double planned = pk::lbm::memory_plan(geometry.cell_count(), parameters, sizeof(Real)).device / cells;
    record.metrics["device_bytes_per_cell"] = measured;
    record.metrics["planned_device_bytes_per_cell"] = planned;
    std::printf("  device memory: %.1f bytes a cell held (plan %.1f)\n", measured, planned);
  }
  report_checkpoints(files, solver, record.metrics, true);
  const std::string path = pk::write_result(record, options.out);
  std::cout << "  wrote " << path << '\n';
  return {name, options.compare_spaces ? solver.fields() : HostFields{}};
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
  std::string space_request = "all", pattern = "aa", flag_file, slab_axis = "auto";
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
  cli.add_option("--h5-every", options.h5_every,
                 "write the fields to one HDF5 file (and its XDMF) every N steps, all ranks into one (0: never)")
      ->capture_default_str();
  cli.add_option("--out", options.out, "directory for .vti and .h5 files and the JSON summary")->capture_default_str();
  cli.add_option("--slab-axis", slab_axis,
                 "on several MPI ranks, the axis the lattice is cut along: x, y, z, or auto (z when it has a layer "
                 "for every rank: its planes are contiguous)")
      ->check(CLI::IsMember({"auto", "x", "y", "z"}))
      ->capture_default_str();
  pk::add_checkpoint_options(cli, options.checkpoint, "steps");
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;

  pk::require(options.steps >= 1 && options.steps <= max_steps,
              "--steps " + std::to_string(options.steps) + ": need 1 to " + std::to_string(max_steps) + " steps");
  pk::require(options.vti_every >= 0, "--vti-every " + std::to_string(options.vti_every) + " must be >= 0");
  pk::require(options.h5_every >= 0, "--h5-every ", options.h5_every, " must be >= 0");
  pk::require(options.h5_every == 0 || PK_ENABLE_HDF5,
              "--h5-every: this build has no HDF5 output (configure with -DPK_ENABLE_HDF5=ON and MPI; Debian: "
              "libhdf5-openmpi-dev)");
  parameters.streaming = pattern == "ab" ? Streaming::ab : Streaming::aa;
  parameters.planned_steps = options.steps;  // tuning trials take a bounded share of them
  if (slab_axis != "auto") options.slab_axis = static_cast<SlabAxis>(slab_axis[0] - 'x');
  parameters.initial_density = 0.5 * (parameters.inlet_density + parameters.outlet_density);
  Geometry geometry = flag_file.empty() ? box_channel(channel[0], channel[1], channel[2]) : read_flag_file(flag_file);
  geometry.validate();
  validate(parameters, geometry);
  pk::check_checkpoint_options(options.checkpoint);
  auto spaces = pk::select_spaces(space_request);
  pk::require(spaces.size() == 1 || (options.checkpoint.path.empty() && options.checkpoint.restart.empty()),
              "--checkpoint and --restart: a checkpoint holds a run on one space; choose it with --space");
  options.compare_spaces = spaces.size() > 1;
  pk::require_writable_directory(options.out, "--out");
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
      const Slab slab = slab_of(solver.geometry(), world.size(), rank, static_cast<SlabAxis>(solver.slab().axis));
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
    require_lattice_memory(space, geometry.cell_count() / world.size(), setup.parameters, sizeof(Real), options,
                           world.size());
  });
  pk::CheckpointHeader header = run_header(name, geometry, setup.parameters, options);
  header.options.emplace_back(
      "slab-axis",
      std::string(1, "xyz"[split_axis(geometry, world.size(), options.slab_axis)]));  // a rank's part is its slab
  pk::CheckpointFiles files(options.checkpoint.path, world.size(), world.rank(),
                            [&](const std::function<void()>& body) { pk::mpi::collectively(world, body); });
  const bool restart = !options.checkpoint.restart.empty();
  DistributedSolver<Space, Real> solver(
      world, space, geometry,
      restart ? restart_parameters(setup.parameters, files.peek(options.checkpoint.restart, header)) : setup.parameters,
      options.slab_axis);
  if (restart)
    files.read(options.checkpoint.restart, header,
               [&](pk::CheckpointReader& r) { read_lattice(r, solver.local_solver()); });
  const auto write_checkpoint = [&] {
    if (options.checkpoint.path.empty()) return;
    pk::CheckpointHeader now = header;
    now.step = solver.step_count();
    describe_state(now, solver.local_solver());
    files.write(now, [&](pk::CheckpointWriter& w) { write_lattice(w, solver.local_solver()); });
  };
  const std::int64_t start_step = solver.step_count();
  pk::CheckpointSchedule schedule(options.checkpoint, start_step);
  const auto write_fields = [&](When when) {
    const std::string stem = "lbm-" + name + "-" + padded(solver.step_count());
    if (fields_due(options.vti_every, solver.step_count(), when)) {
      write_pieces(world, solver, options.out, stem);
      if (world.rank() == 0) std::cout << "  wrote " << options.out + "/" + stem + ".pvti" << '\n';
    }
#if PK_ENABLE_HDF5
    if (fields_due(options.h5_every, solver.step_count(), when)) {
      write_h5(&world, options.out + "/" + stem + ".h5", geometry, solver.slab_origin(), solver.fields());
      if (world.rank() == 0) std::cout << "  wrote " << options.out + "/" + stem + ".h5" << '\n';
    }
#endif
  };
  if (!restart) write_fields(When::start);
  double compute_seconds = 0;
  const double exchange_before = solver.exchange_seconds();  // the first exchange also connects the ranks
  std::int64_t chunk = 1;  // grows until a chunk takes about 0.2 s on the slowest rank
  bool stopped = false;
  while (solver.step_count() < options.steps && !stopped) {
    std::int64_t n = std::min(chunk, options.steps - solver.step_count());
    n = until_next(options.h5_every, solver.step_count(), until_next(options.vti_every, solver.step_count(), n));
    n = schedule.steps_to_next(solver.step_count(), n);
    Kokkos::Timer timer;
    solver.advance(n);
    space.fence();
    compute_seconds += timer.seconds();
    if (world.max(timer.seconds()) < 0.2 && chunk < options.steps) chunk *= 2;  // the same on every rank
    write_fields(When::step);
    // Signals reach the ranks at different times: they agree on what is due, rank 0's clock decides.
    const unsigned due = world.bit_or(schedule.due(solver.step_count(), world.rank() == 0));
    if (due & pk::CheckpointSchedule::checkpoint) write_checkpoint();
    stopped = due & pk::CheckpointSchedule::stop;
  }
  write_fields(When::end);
  write_checkpoint();
  const std::int64_t steps = solver.step_count() - start_step;  // this process's

  // The slowest rank sets the pace.
  const double seconds = world.max(compute_seconds),
               exchange_share = world.max((solver.exchange_seconds() - exchange_before) / compute_seconds);
  const std::int64_t active = geometry.active_cell_count();
  const double mlups = seconds > 0 ? active * 1e-6 * steps / seconds : 0;
  const FlowSummary summary = solver.summary();
  const double mass = world.sum(summary.mass), speed = world.max(summary.max_speed);
  const char* axis_name[] = {"x", "y", "z"};
  if (world.rank() == 0) {
    std::printf(
        "%s: %lld steps of %d x %d x %d (%lld active cells, %s, %s) on %d ranks (slabs along %s) in %.3f s: "
        "%.2f MLUPS, %.2f per rank, %.1f %% of the time in the exchange%s; max |u| %.4g%s\n",
        name.c_str(), static_cast<long long>(solver.step_count()), geometry.nx(), geometry.ny(), geometry.nz(),
        static_cast<long long>(active), streaming_name(setup.parameters.streaming), options.precision.c_str(),
        world.size(), axis_name[solver.slab().axis], seconds, mlups, mlups / world.size(), 100 * exchange_share,
        solver.staged() ? " (staged through host buffers)" : "", speed, stopped ? " (interrupted)" : "");
    pk::ResultRecord record{"lbm",
                            std::string(streaming_name(setup.parameters.streaming)) + "-" + options.precision + "-" +
                                std::to_string(geometry.nx()) + "x" + std::to_string(geometry.ny()) + "x" +
                                std::to_string(geometry.nz()) + "-np" + std::to_string(world.size()),
                            name,
                            pk::describe_device(space),
                            command,
                            {{"steps", double(solver.step_count())},
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
                             {"shifted_storage", solver.shifted_storage() ? 1.0 : 0.0}},  // rank 0's
                            stopped};
    report_checkpoints(files, solver.local_solver(), record.metrics, true);
    std::cout << "  wrote " << pk::write_result(record, options.out) << '\n';
  }
  return {name, options.compare_spaces ? solver.fields() : HostFields{}, stopped};
}

// pk-lbm on several ranks: every rank steps its slab.
int run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  std::vector<Run> runs;
  pk::for_each_selected_space(setup.spaces, [&](const auto& space) {
    using Space = std::decay_t<decltype(space)>;
    if (!runs.empty() && runs.back().stopped) return;
    runs.push_back(with_precision(setup.options, [&](auto real) {
      return pk::refuse_if_out_of_memory(
          space, "a slab of " + std::to_string(setup.geometry.cell_count() / world.size()) + " cells",
          smaller_lattice(bytes_per_cell<Space>(setup.geometry.cell_count() / world.size(), setup.parameters,
                                                sizeof(real), setup.options),
                          setup.parameters, sizeof(real), world.size()),
          [&] { return run_distributed<Space, decltype(real)>(world, space, setup, command); });
    }));
  });
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double difference = world.max(max_velocity_difference(runs[i].fields, runs[0].fields));
    if (world.rank() == 0)
      std::printf("max |u_%s - u_%s| = %.3e\n", runs[i].space.c_str(), runs[0].space.c_str(), difference);
  }
  // Every rank exits as the signalled ones do (143 for SIGTERM), or 0.
  const bool stopped = !runs.empty() && runs.back().stopped;
  return stopped ? static_cast<int>(world.max(pk::interrupted() ? pk::interrupted_status() : 0)) : 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  pk::bind_openmp_threads_by_default(argv);
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
        return pk::refuse_if_out_of_memory(
            space, "a lattice of " + std::to_string(setup->geometry.cell_count()) + " cells",
            smaller_lattice(
                bytes_per_cell<Space>(setup->geometry.cell_count(), setup->parameters, sizeof(real), setup->options),
                setup->parameters, sizeof(real)),
            [&] {
              return run<Space, decltype(real)>(space, setup->geometry, setup->parameters, setup->options, command);
            });
      }));
    });
    for (std::size_t i = 1; i < runs.size(); ++i)
      std::printf("max |u_%s - u_%s| = %.3e (max |u| %.3e)\n", runs[i].space.c_str(), runs[0].space.c_str(),
                  max_velocity_difference(runs[i].fields, runs[0].fields), max_speed(runs[0].fields));
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
