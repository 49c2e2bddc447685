// pk-lbm: D3Q19 lattice Boltzmann flow through a box channel or a user's flag field, on one
// or every execution space; VTK output, a summary on stdout and a JSON record. Built with
// MPI and started on several ranks (mpirun -np N pk-lbm ...), it splits the lattice into
// slabs, one per rank, and writes a .pvti with one .vti piece per rank. Checkpoints and
// restarts (--checkpoint, --restart) continue a run bit for bit (docs/jobs.md).
#include "lbm/options.hpp"
#include "lbm/outputs.hpp"

#include <pk/app/program.hpp>
#include <pk/app/results.hpp>
#include <pk/app/step_loop.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/memory.hpp>
#include <pk/lbm/memory_plan.hpp>
#include <pk/lbm/solver.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace {

using namespace pk::lbm;
using namespace pk::lbm::app;

struct Run {
  std::string space;
  HostFields fields;
};

// The lattice a run holds (a rank's slab on `ranks` ranks), as its memory checks see it.
template <class Real>
LatticeRequest lattice_request(const Setup& setup, int ranks = 1) {
  return {setup.geometry.cell_count() / ranks, setup.parameters, sizeof(Real), setup.options.fields_on_host(), ranks};
}

// The record's case: "aa-fp32-64x32x32", and "-npN" on N ranks.
std::string case_name(const Setup& setup, int ranks = 1) {
  const Geometry& g = setup.geometry;
  return std::string(streaming_name(setup.parameters.streaming)) + "-" + setup.options.precision + "-" +
         std::to_string(g.nx()) + "x" + std::to_string(g.ny()) + "x" + std::to_string(g.nz()) +
         (ranks > 1 ? "-np" + std::to_string(ranks) : "");
}

// What both runs' step loops share: `solver` stepped and fenced on `space`, the outputs'
// cadences, and checkpoints of `lattice` (the solver, or this rank's part of it) into `files`.
template <class Space, class AnySolver, class Lattice>
pk::StepLoop step_loop(const Space& space, AnySolver& solver, const Lattice& lattice, const Options& options,
                       const pk::CheckpointHeader& header, pk::CheckpointFiles& files) {
  pk::StepLoop loop;
  loop.step = [&solver] { return solver.step_count(); };
  loop.advance = [&solver, space](std::int64_t n) {
    solver.advance(n);
    space.fence();
  };
  loop.output_every = {options.vti_every, options.h5_every};
  loop.write_checkpoint = [&solver, &lattice, &options, &header, &files] {
    if (options.checkpoint.path.empty()) return;
    pk::CheckpointHeader now = header;
    now.step = solver.step_count();
    describe_state(now, lattice);
    files.write(now, [&](pk::CheckpointWriter& w) { write_lattice(w, lattice); });
  };
  return loop;
}

// pk-lbm on one process and one space.
template <class Space, class Real>
Run run_space(const Space& space, const Setup& setup, const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const Options& options = setup.options;
  const Geometry& geometry = setup.geometry;
  require_lattice_memory(space, lattice_request<Real>(setup));
  // On a device, the memory the solver holds is measured, as what it leaves free: the figure
  // that says how large a lattice fits, beside the plan that refuses larger ones.
  constexpr bool on_device = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  const double free_before = on_device ? pk::available_bytes(space) : 0;
  const pk::CheckpointHeader header = run_header(name, geometry, setup.parameters, options);
  pk::CheckpointFiles files(options.checkpoint.path, 1, 0);
  const bool restart = !options.checkpoint.restart.empty();
  Solver<Space, Real> solver(space, geometry,
                             restart
                                 ? restart_parameters(setup.parameters, files.peek(options.checkpoint.restart, header))
                                 : setup.parameters);
  if (restart)
    files.read(options.checkpoint.restart, header, [&](pk::CheckpointReader& r) { read_lattice(r, solver); });
  const std::int64_t start_step = solver.step_count(), active = geometry.active_cell_count();
  pk::CheckpointSchedule schedule(options.checkpoint, start_step);
  pk::StepLoop loop = step_loop(space, solver, solver, options, header, files);
  loop.write_outputs = [&](pk::When when) {
    const std::string stem = options.out + "/lbm-" + name + "-" + padded(solver.step_count());
    if (pk::output_due(options.vti_every, solver.step_count(), when))
      write_vti(stem + ".vti", geometry, solver.fields());
#if PK_ENABLE_HDF5
    if (pk::output_due(options.h5_every, solver.step_count(), when))
      write_h5(nullptr, stem + ".h5", geometry, {0, 0, 0}, solver.fields());
#endif
  };
  loop.progress = [&](double seconds) {
    char line[160];
    std::snprintf(line, sizeof line, "%s: step %lld / %lld (%.0f %%), %.1f MLUPS", name.c_str(),
                  static_cast<long long>(solver.step_count()), static_cast<long long>(options.steps),
                  100.0 * solver.step_count() / options.steps,
                  active * 1e-6 * (solver.step_count() - start_step) / seconds);
    return std::string(line);
  };
  if (!restart) loop.write_outputs(pk::When::start);
  const double seconds = pk::run_steps(loop, options.steps, schedule).compute_seconds;

  const std::int64_t steps = solver.step_count();  // fewer than asked when interrupted
  // This process's steps: a restarted run's started at the checkpoint.
  const double mlups = seconds > 0 ? active * 1e-6 * (steps - start_step) / seconds : 0;
  const FlowSummary summary = solver.summary();
  pk::require(!std::isnan(summary.max_speed), name, ": the velocity is NaN after ", steps,
              " steps: the flow became unstable (--check-every finds where)");
  std::printf("%s: %lld steps of %d x %d x %d (%lld active cells, %s, %s) in %.3f s: %.2f MLUPS; max |u| %.4g%s\n",
              name.c_str(), static_cast<long long>(steps), geometry.nx(), geometry.ny(), geometry.nz(),
              static_cast<long long>(active), streaming_name(setup.parameters.streaming), options.precision.c_str(),
              seconds, mlups, summary.max_speed, pk::interrupted() ? " (interrupted)" : "");
  pk::ResultRecord record{"lbm",
                          case_name(setup),
                          name,
                          pk::describe_device(space),
                          command,
                          {{"steps", double(steps)},
                           {"active_cells", double(active)},
                           {"wall_seconds", seconds},
                           {"mlups", mlups},
                           {"max_speed", summary.max_speed},
                           {"mean_density", active > 0 ? summary.mass / active : 0},
                           {"tau", setup.parameters.tau},
                           {"shifted_storage", solver.shifted_storage() ? 1.0 : 0.0}},
                          pk::interrupted()};
  if (on_device) {
    const double cells = static_cast<double>(geometry.cell_count());
    const double measured = (free_before - pk::available_bytes(space)) / cells;
    const double planned = memory_plan(geometry.cell_count(), setup.parameters, sizeof(Real)).device / cells;
    record.metrics["device_bytes_per_cell"] = measured;
    record.metrics["planned_device_bytes_per_cell"] = planned;
    std::printf("  device memory: %.1f bytes a cell held (plan %.1f)\n", measured, planned);
  }
  report_checkpoints(files, solver, record.metrics, true);
  std::cout << "  wrote " << pk::write_result(record, options.out) << '\n';
  return {name, options.compare_spaces ? solver.fields() : HostFields{}};
}

// The largest difference of velocities between the first space's run and the others' (the
// largest over the ranks, which each hold their slab's fields).
void print_space_differences(const std::vector<Run>& runs, const std::function<double(double)>& max_over_ranks,
                             bool print) {
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const double difference = max_over_ranks(max_velocity_difference(runs[i].fields, runs[0].fields)),
                 speed = max_over_ranks(max_speed(runs[0].fields));
    if (print)
      std::printf("max |u_%s - u_%s| = %.3e (max |u| %.3e)\n", runs[i].space.c_str(), runs[0].space.c_str(), difference,
                  speed);
  }
}

// pk-lbm on one process: each space in turn.
void run(const Setup& setup, const std::string& command) {
  std::vector<Run> runs;
  pk::for_each_space_until_interrupted(setup.spaces, [&](const auto& space) {
    using Space = std::decay_t<decltype(space)>;
    runs.push_back(with_precision(setup.options.precision, [&](auto real) {
      using Real = decltype(real);
      return refuse_if_lattice_out_of_memory(space, lattice_request<Real>(setup),
                                             [&] { return run_space<Space, Real>(space, setup, command); });
    }));
  });
  print_space_differences(
      runs, [](double d) { return d; }, true);
}

#if PK_ENABLE_MPI
// pk-lbm on every rank and one space: the rank's slab.
template <class Space, class Real>
Run run_space_on_ranks(const pk::mpi::Communicator& world, const Space& space, const Setup& setup,
                       const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const Options& options = setup.options;
  const Geometry& geometry = setup.geometry;
  // A rank's share of the lattice, its two ghost layers aside.
  pk::mpi::collectively(world, [&] { require_lattice_memory(space, lattice_request<Real>(setup, world.size())); });
  pk::CheckpointHeader header = run_header(name, geometry, setup.parameters, options);
  header.options.emplace_back(  // a rank's part is its slab
      "slab-axis", std::string(1, "xyz"[split_axis(geometry, world.size(), options.slab_axis)]));
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
  const std::int64_t start_step = solver.step_count();
  pk::CheckpointSchedule schedule(options.checkpoint, start_step);
  pk::StepLoop loop = step_loop(space, solver, solver.local_solver(), options, header, files);
  loop.write_outputs = [&](pk::When when) {
    const std::string stem = "lbm-" + name + "-" + padded(solver.step_count());
    if (pk::output_due(options.vti_every, solver.step_count(), when)) {
      write_pieces(world, solver, options.out, stem);
      if (world.rank() == 0) std::cout << "  wrote " << options.out + "/" + stem + ".pvti" << '\n';
    }
#if PK_ENABLE_HDF5
    if (pk::output_due(options.h5_every, solver.step_count(), when)) {
      write_h5(&world, options.out + "/" + stem + ".h5", geometry, solver.slab_origin(), solver.fields());
      if (world.rank() == 0) std::cout << "  wrote " << options.out + "/" + stem + ".h5" << '\n';
    }
#endif
  };
  loop.slowest = [&](double seconds) { return world.max(seconds); };
  loop.any_rank = [&](unsigned due) { return world.bit_or(due); };
  loop.keeps_the_clock = world.rank() == 0;
  if (!restart) loop.write_outputs(pk::When::start);
  const double exchange_before = solver.exchange_seconds();  // the first exchange also connects the ranks
  const pk::StepLoopEnd end = pk::run_steps(loop, options.steps, schedule);
  // The slowest rank sets the pace.
  const double seconds = world.max(end.compute_seconds),
               exchange_share = world.max((solver.exchange_seconds() - exchange_before) / end.compute_seconds);
  const std::int64_t steps = solver.step_count() - start_step, active = geometry.active_cell_count();
  const double mlups = seconds > 0 ? active * 1e-6 * steps / seconds : 0;
  const FlowSummary summary = solver.summary();
  const double mass = world.sum(summary.mass), speed = world.max(summary.max_speed);
  if (world.rank() == 0) {
    std::printf(
        "%s: %lld steps of %d x %d x %d (%lld active cells, %s, %s) on %d ranks (slabs along %c) in %.3f s: "
        "%.2f MLUPS, %.2f per rank, %.1f %% of the time in the exchange%s; max |u| %.4g%s\n",
        name.c_str(), static_cast<long long>(solver.step_count()), geometry.nx(), geometry.ny(), geometry.nz(),
        static_cast<long long>(active), streaming_name(setup.parameters.streaming), options.precision.c_str(),
        world.size(), "xyz"[solver.slab().axis], seconds, mlups, mlups / world.size(), 100 * exchange_share,
        solver.staged() ? " (staged through host buffers)" : "", speed, end.stopped ? " (interrupted)" : "");
    pk::ResultRecord record{"lbm",
                            case_name(setup, world.size()),
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
                            end.stopped};
    report_checkpoints(files, solver.local_solver(), record.metrics, true);
    std::cout << "  wrote " << pk::write_result(record, options.out) << '\n';
  }
  return {name, options.compare_spaces ? solver.fields() : HostFields{}};
}

// pk-lbm on several ranks: each space in turn, every rank its slab.
void run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  std::vector<Run> runs;
  pk::mpi::for_each_space_until_interrupted(world, setup.spaces, [&](const auto& space) {
    using Space = std::decay_t<decltype(space)>;
    runs.push_back(with_precision(setup.options.precision, [&](auto real) {
      using Real = decltype(real);
      return refuse_if_lattice_out_of_memory(space, lattice_request<Real>(setup, world.size()), [&] {
        return run_space_on_ranks<Space, Real>(world, space, setup, command);
      });
    }));
  });
  print_space_differences(
      runs, [&](double value) { return world.max(value); }, world.rank() == 0);
}
#endif

}  // namespace

int main(int argc, char** argv) {
#if PK_ENABLE_MPI
  return pk::program_main("pk-lbm", argc, argv, parse, run, run_ranks);
#else
  return pk::program_main("pk-lbm", argc, argv, parse, run);
#endif
}
