#pragma once
// One GBEES run of pk-gbees on one process: snapshots at given times and around each
// measurement, optionally beside a Monte Carlo reference, checkpoints and a restart.
#include "outputs.hpp"

#include <pk/core/checkpoint.hpp>
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/core/memory.hpp>
#include <pk/gbees/checkpoint.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/solver.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pk::gbees::app {

// What a run keeps of a snapshot: its figures, not its cells (a grid of hundreds of millions
// of cells at each snapshot would outgrow the host); its marginals are written as it is taken.
struct Snapshot {
  std::string label;  // "t=1.000000-" before a measurement, "+" after
  double time = 0;
  std::size_t cells = 0;
  double kept_probability = 0;      // on the grid's cells
  std::optional<HostCells> grid;    // for the convergence study's comparisons only
  double bc = -1;                   // vs Monte Carlo, when run
  Statistics so_far;                // the run's up to here: its probability budget (pruned, clipped, outflow)
  std::vector<double> marginal_bc;  // each axis' 1-D marginal vs Monte Carlo's, without a KDE
  double mc_effective_size = 0;     // what the Bayes updates' weights leave of the samples
};

struct RunResult {
  std::vector<Snapshot> snapshots;
  Statistics statistics;
  double seconds = 0;  // solver time only (no Monte Carlo, KDE or output)
  // Time spent taking snapshots: the cells to the host and decoded, the Monte Carlo comparison,
  // the marginals written.
  double cells_seconds = 0, monte_carlo_seconds = 0, marginals_seconds = 0;
  bool completed = true;
  double final_time = 0;
  // Why the run stopped before its end other than by a signal: the grid outgrew the memory
  // (out_of_memory) or --max-cells.
  std::string stopped;
  bool out_of_memory = false;
  int checkpoints = 0;
};

// What run_once does besides the run: marginals written to `marginal_dirs` (none: not
// written), the snapshots' grids kept for a comparison, checkpoints and a restart.
struct RunOutputs {
  std::vector<std::string> marginal_dirs;
  bool keep_grids = false;
  bool checkpointed = false;
};

// The snapshot of `solver` now, labelled with its time and `suffix`: its cells to the host,
// compared with `mc` (when it runs; the KDE with `kde`), their marginals written, the time
// each part took added to `r`.
template <class GbeesSolver, class MonteCarloRun>
Snapshot take_snapshot(const GbeesSolver& solver, MonteCarloRun* mc, const std::string& suffix, bool kde,
                       double threshold, const RunOutputs& outputs, RunResult& r) {
  Kokkos::Timer part;
  HostCells cells = solver.cells();
  r.cells_seconds += part.seconds();
  Snapshot s;
  s.label = "t" + fixed(solver.time(), 4) + suffix;
  s.time = cells.time;
  s.cells = cells.size();
  for (double q : cells.probability) s.kept_probability += q;
  s.so_far = solver.statistics();
  if (mc) {
    part.reset();
    mc->advance_to(solver.time());
    if (kde) s.bc = mc->bhattacharyya(cells, threshold);
    s.marginal_bc = mc->marginal_bhattacharyya(cells);
    s.mc_effective_size = mc->effective_size();
    r.monte_carlo_seconds += part.seconds();
  }
  part.reset();
  if (!outputs.marginal_dirs.empty()) write_marginals(cells, s.label, outputs.marginal_dirs);
  r.marginals_seconds += part.seconds();
  if (outputs.keep_grids) s.grid = std::move(cells);
  return s;
}

// Reads the restart checkpoint `path` into `solver`; returns the measurement the run takes next.
template <class GbeesSolver>
std::size_t read_restart(CheckpointFiles& files, const std::string& path, const CheckpointHeader& header,
                         const Parameters& p, GbeesSolver& solver) {
  std::size_t next_measurement = 0;
  files.read(path, header, [&](CheckpointReader& reader) {
    const CheckpointHeader& h = reader.header();
    require(h.integer_value("rebuilt") == 1 || std::fabs(h.real_value("time") - p.end_time) < 1e-12, "--restart ",
            reader.path(), ": a checkpoint of a run's end that is not at --end-time");
    next_measurement = static_cast<std::size_t>(h.integer_value("next-measurement"));
    CheckpointState<GbeesSolver>::read(reader, solver);
  });
  return next_measurement;
}

// One GBEES run, snapshots at `times` (and before/after each measurement), optionally
// compared with Monte Carlo.
template <class Space, class Model>
RunResult run_once(const Space& space, const Model& model, const Parameters& p, const std::vector<double>& times,
                   const Options& o, std::int64_t mc_samples, bool progress, const RunOutputs& outputs) {
  RunResult r;
  Kokkos::Timer timer;
  using GbeesSolver = Solver<Space, Model>;
  using State = CheckpointState<GbeesSolver>;
  GbeesSolver solver(space, model, p);
  const bool checkpointed = outputs.checkpointed;
  const pk::CheckpointHeader header = run_header(pk::SpaceTraits<Space>::name, o, p, times);
  pk::CheckpointFiles files(checkpointed ? o.checkpoint.path : "", 1, 0);
  const bool restart = checkpointed && !o.checkpoint.restart.empty();
  std::size_t next_measurement = restart ? read_restart(files, o.checkpoint.restart, header, p, solver) : 0;
  space.fence();
  r.seconds += timer.seconds();
  const auto write_checkpoint = [&] {
    if (!checkpointed || o.checkpoint.path.empty()) return;
    pk::CheckpointHeader now = header;
    now.add_value("next-measurement", static_cast<std::int64_t>(next_measurement));
    State::describe(now, solver);
    files.write(now, [&](pk::CheckpointWriter& w) { State::write(w, solver); });
  };
  pk::CheckpointSchedule schedule(checkpointed ? o.checkpoint : pk::CheckpointOptions{}, solver.statistics().steps);
  bool checkpoint_pending = false, stop_pending = false;
  std::unique_ptr<MonteCarlo<Space, Model>> mc;
  if (mc_samples > 0) mc = std::make_unique<MonteCarlo<Space, Model>>(space, model, p, mc_samples);
  const auto take = [&](const std::string& suffix) {
    r.snapshots.push_back(take_snapshot(solver, mc.get(), suffix, o.mc_kde, p.threshold, outputs, r));
  };
  ProgressLine line(progress ? o.progress_seconds : 0, p.end_time);
  auto observer = [&](const StepInfo& info) {
    line.show(info, r.seconds + timer.seconds());
    // A checkpoint waits for a batch that ends with a prune (CheckpointState), at most
    // prune_interval steps; so does a stop that asks for one.
    const unsigned due = schedule.due(info.step);
    checkpoint_pending = checkpoint_pending || (due & pk::CheckpointSchedule::checkpoint);
    stop_pending = stop_pending || (due & pk::CheckpointSchedule::stop);
    if (checkpoint_pending && State::can_continue(solver)) {
      write_checkpoint();
      checkpoint_pending = false;
    }
    return !(stop_pending && !checkpoint_pending);
  };
  // The solver's time, in pieces; a piece that ends in an exception counts as well.
  bool timing = false;
  const auto start_timing = [&] {
    timer.reset();
    timing = true;
  };
  const auto stop_timing = [&] {
    r.seconds += timer.seconds();
    timing = false;
  };
  try {
    if (!restart) take("");
    for (double t : times) {
      if (t <= solver.time()) continue;
      start_timing();
      const bool done = solver.advance_to(t, observer);
      space.fence();
      stop_timing();
      if (!done) {
        r.completed = false;
        break;
      }
      const bool measure =
          next_measurement < p.measurements.size() && std::fabs(p.measurements[next_measurement].time - t) < 1e-12;
      take(measure ? "-" : "");
      if (measure) {
        start_timing();
        solver.measure(p.measurements[next_measurement]);
        space.fence();
        stop_timing();
        if (mc) mc->measure(p.measurements[next_measurement]);
        take("+");
        ++next_measurement;
      }
    }
  } catch (const std::exception& e) {  // the grid outgrew the memory or --max-cells: keep the snapshots taken
    if (timing) stop_timing();
    r.out_of_memory = pk::is_allocation_failure(e);
    if (!r.out_of_memory && !dynamic_cast<const pk::Error*>(&e)) throw;
    r.completed = false;
    r.stopped = e.what();
  }
  line.finish();
  if (r.completed || State::can_continue(solver)) write_checkpoint();  // none when this step's exists
  r.statistics = solver.statistics();
  r.final_time = solver.time();
  r.checkpoints = files.written();
  return r;
}

}  // namespace pk::gbees::app
