#pragma once
// pk-gbees on several MPI ranks: the grid in slabs, one a rank (pk::gbees::DistributedSolver);
// snapshots' marginals and probability budgets, a summary and a record, written by rank 0.
#include "outputs.hpp"

#include <pk/app/results.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/gbees/distributed_solver.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

namespace pk::gbees::app {

// The marginal of every rank's cells on rank 0 (empty on the others): each rank's marginal
// `mine` of the cells it owns, added point by point (the ranks own disjoint cells).
Marginal gathered_marginal(const pk::mpi::Communicator& world, const Marginal& mine) {
  const std::size_t k = mine.axes.size();
  std::vector<double> packed;  // per point: its coordinates, then its density
  for (std::size_t q = 0; q < mine.density.size(); ++q) {
    packed.insert(packed.end(), mine.coordinate.begin() + q * k, mine.coordinate.begin() + (q + 1) * k);
    packed.push_back(mine.density[q]);
  }
  const auto gathered = world.gather(packed);
  Marginal out;
  out.axes = mine.axes;
  if (world.rank() != 0) return out;
  std::map<std::vector<double>, double> density;
  for (std::size_t at = 0; at + k < gathered.size(); at += k + 1)
    density[std::vector<double>(gathered.begin() + at, gathered.begin() + at + k)] += gathered[at + k];
  for (const auto& [coordinate, value] : density) {
    out.coordinate.insert(out.coordinate.end(), coordinate.begin(), coordinate.end());
    out.density.push_back(value);
  }
  return out;
}

// What a run on several ranks measured, over them all: the slowest rank's time and shares.
struct RanksFigures {
  int ranks = 1, slab_axis = 0;  // the axis 1-based
  bool completed = true;
  double final_time = 0, seconds = 0, communicating = 0, peak_bytes = 0, peak_bytes_all = 0;
  nlohmann::json shares;
  Statistics statistics;
  double cells_per_second() const { return statistics.cell_steps / seconds; }
  double bytes_per_cell() const {
    return peak_bytes * ranks / std::max<double>(1, static_cast<double>(statistics.max_cells));
  }
};

// The summary, its line on stdout, the record and the plots of a run on several ranks, by rank 0.
template <class Space, class Model>
void report_on_root(const Space& space, const Model& model, const Setup& setup, const std::string& command,
                    const RanksFigures& f, const nlohmann::json& snapshots, const std::string& stem,
                    const std::string& marginal_dir) {
  const Options& o = setup.o;
  const std::string name = pk::SpaceTraits<Space>::name;
  const int n = model.dimension();
  const Statistics& st = f.statistics;
  const double seconds = f.seconds, cells_per_second = f.cells_per_second(), bytes_per_cell = f.bytes_per_cell(),
               communicating = f.communicating;
  const bool completed = f.completed;
  nlohmann::json j{{"model", Model::name()},
                   {"space", name},
                   {"device", pk::describe_device(space)},
                   {"command", command},
                   {"ranks", f.ranks},
                   {"slab_axis", f.slab_axis},
                   {"completed", completed},
                   {"interrupted", !completed},
                   {"final_time", f.final_time},
                   {"dimension", n},
                   {"members", member_count(setup.p)},
                   {"steps", st.steps},
                   {"max_cells", st.max_cells},
                   {"cell_steps", st.cell_steps},
                   {"wall_seconds", seconds},
                   {"cells_per_second", cells_per_second},
                   {"communication_share", communicating},
                   {"communication", f.shares},
                   {"peak_bytes_per_rank", f.peak_bytes},
                   {"peak_bytes_all_ranks", f.peak_bytes_all},
                   {"bytes_per_cell", bytes_per_cell},
                   {"pruned_probability", st.pruned_probability},
                   {"clipped_probability", st.clipped_probability},
                   {"outflow_probability", st.outflow_probability},
                   {"snapshots", snapshots}};
  const std::string path = o.out + "/" + stem + ".json";
  pk::write_file(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  std::cout << name << ": " << Model::name() << " " << n << "-D on " << f.ranks << " ranks (slabs along axis "
            << f.slab_axis << ") to t = " << fixed(f.final_time, 4) << (completed ? "" : " (interrupted)") << ": "
            << st.steps << " steps, max " << st.max_cells << " cells, " << fixed(seconds, 3) << " s, "
            << fixed(cells_per_second / 1e6, 3) << " M cells/s (" << fixed(cells_per_second / 1e6 / f.ranks, 3)
            << " a rank), " << fixed(100 * communicating, 1) << " % of the time in exchanges and reductions, "
            << fixed(bytes_per_cell, 1) << " B/cell at peak\n"
            << "  summary: " << path << ", marginals: " << marginal_dir << "/\n";
  if (!o.results.empty()) {
    pk::ResultRecord record{
        "gbees",   Model::name() + "-np" + std::to_string(f.ranks), name, pk::describe_device(space), command, {},
        !completed};
    record.metrics = {{"wall_seconds", seconds},
                      {"steps", static_cast<double>(st.steps)},
                      {"max_cells", static_cast<double>(st.max_cells)},
                      {"cells_per_second", cells_per_second},
                      {"cells_per_second_per_rank", cells_per_second / f.ranks},
                      {"ranks", static_cast<double>(f.ranks)},
                      {"communication_share", communicating},
                      {"bytes_per_cell", bytes_per_cell}};
    for (const auto& phase : f.shares.items()) record.metrics[phase.key()] = phase.value();
    std::cout << "  result: " << pk::write_result(record, o.results) << "\n";
  }
  if (o.plot && completed) plot_marginals(setup.python, marginal_dir);
  if (!completed) std::cout << "  interrupted: summary of the run so far written\n";
}

// pk-gbees on several ranks: the grid in slabs, one a rank (pk::gbees::DistributedSolver);
// snapshots' marginals and probability budgets, a summary and a record, written by rank 0.
// Returns whether a signal stopped the run.
template <class Space, class Model>
bool run_distributed(const pk::mpi::Communicator& world, const Space& space, const Model& model, const Setup& setup,
                     const std::string& command) {
  const Options& o = setup.o;
  const Parameters& p = setup.p;
  const std::string name = pk::SpaceTraits<Space>::name;
  const int n = model.dimension();
  const bool root = world.rank() == 0;
  const double planned_cells = std::max(initial_cell_count(p), static_cast<double>(p.max_cells));
  pk::mpi::collectively(world, [&] {
    pk::require_memory(space, planned_bytes(n, planned_cells), fixed(planned_cells, 0) + " cells", fewer_cells(n));
  });
  Kokkos::Timer timer;
  std::optional<DistributedSolver<Space, Model>> solver;
  pk::mpi::collectively(world, [&] { solver.emplace(world, space, model, p, o.slab_axis - 1); });
  const std::string stem = "gbees-" + Model::name() + "-" + name + "-np" + std::to_string(world.size());
  const std::string marginal_dir = o.out + "/" + stem;
  nlohmann::json snapshots = nlohmann::json::array();
  const auto take = [&](const std::string& suffix) {
    const HostCells mine = solver->cells();
    const std::string label = "t" + fixed(solver->time(), 4) + suffix;
    const std::vector<std::vector<int>> axes = marginal_axes(n);
    const std::vector<Marginal> own = marginals(mine, axes);
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const Marginal m = gathered_marginal(world, own[k]);
      if (root) write_csv(m, marginal_path(marginal_dir, label, axes[k]));
    }
    double kept = 0;
    for (double q : mine.probability) kept += q;
    const Statistics st = solver->statistics();
    snapshots.push_back({{"label", label},
                         {"time", solver->time()},
                         {"cells", solver->cell_count()},
                         {"kept_probability", world.sum(kept)},
                         {"pruned_probability", st.pruned_probability},
                         {"clipped_probability", st.clipped_probability},
                         {"outflow_probability", st.outflow_probability}});
  };
  if (root) pk::make_directories(marginal_dir);
  double seconds = timer.seconds();
  ProgressLine line(root ? o.progress_seconds : 0, p.end_time, world.size());
  const auto observer = [&](const StepInfo& info) {
    line.show(info, seconds + timer.seconds());
    return !pk::interrupted();
  };
  take("");
  bool completed = true;
  std::size_t next_measurement = 0;
  for (double t : snapshot_times(p, o.snapshots)) {
    if (t <= solver->time()) continue;
    timer.reset();
    completed = solver->advance_to(t, observer);
    space.fence();
    seconds += timer.seconds();
    if (!completed) break;
    const bool measure =
        next_measurement < p.measurements.size() && std::fabs(p.measurements[next_measurement].time - t) < 1e-12;
    take(measure ? "-" : "");
    if (measure) {
      timer.reset();
      solver->measure(p.measurements[next_measurement++]);
      space.fence();
      seconds += timer.seconds();
      take("+");
    }
  }
  line.finish();
  RanksFigures f;
  f.ranks = world.size();
  f.completed = completed;
  f.final_time = solver->time();
  f.slab_axis = solver->geometry().slab.axis + 1;
  f.seconds = world.max(seconds);
  // The slowest rank's share of the time in each phase between the kernels.
  const auto spent = solver->communication_seconds();
  f.communicating = world.max(spent.reductions + spent.staging + spent.inserting) / f.seconds;
  f.shares = {{"reduction_share", world.max(spent.reductions) / f.seconds},
              {"exchange_share", world.max(spent.staging) / f.seconds},
              {"insert_share", world.max(spent.inserting) / f.seconds}};
  f.statistics = solver->statistics();
  f.peak_bytes = world.max(f.statistics.peak_bytes);
  f.peak_bytes_all = world.sum(f.statistics.peak_bytes);
  if (root) report_on_root(space, model, setup, command, f, snapshots, stem, marginal_dir);
  return !completed;
}

}  // namespace pk::gbees::app
