// pk-gbees: GBEES (grid-based Bayesian estimation exploiting sparsity) on Lorenz '63,
// Lorenz '96 or the planar and spatial restricted three-body problems, on one or every
// execution space: marginals as CSV (and PNG through
// apps/plot_gbees.py), a Monte Carlo comparison (Bhattacharyya coefficient over time), the
// temporal convergence study of the paper's sec. 5.2.2, a summary on stdout and as JSON.
//
//   pk-gbees --space openmp                                   # the paper's Lorenz '63 case
//   pk-gbees --model lorenz96 --dimension 6 --max-cells 6e7  # the paper's Lorenz '96 case
//   pk-gbees --config apps/gbees/lorenz63.ini --mc-samples 100000 --convergence
//   pk-gbees --config apps/gbees/pcr3bp.ini                  # gbees-cuda's PCR3BP case
//
// Checkpoints and restarts (--checkpoint, --restart) continue a run bit for bit on one
// host thread (docs/jobs.md).
#include "gbees/model_choice.hpp"
#include "gbees/options.hpp"
#include "gbees/outputs.hpp"
#include "gbees/run_once.hpp"

#include <pk/app/cli.hpp>
#include <pk/app/program.hpp>
#include <pk/app/results.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/gbees/grid_memory.hpp>
#include <pk/gbees/parameters.hpp>

#include <nlohmann/json.hpp>

#if PK_ENABLE_MPI
#include "gbees/distributed.hpp"
#endif

#include <algorithm>
#include <iostream>
#include <optional>

namespace {

using namespace pk::gbees;
using namespace pk::gbees::app;

// A run's rate and what it implies: bytes a cell at the peak and a cell slot holds, and the
// bandwidth its modelled traffic per cell-step takes.
struct RunFigures {
  double cells_per_second, bytes_per_cell;
  MemoryBreakdown per_slot;
  StepTraffic traffic;
  double model_gbs;
};
RunFigures figures(int n, const RunResult& r) {
  const double rate = r.statistics.cell_steps / r.seconds;
  return {rate, r.statistics.peak_bytes / std::max<std::int64_t>(1, r.statistics.max_cells), bytes_per_slot(n),
          step_traffic(n), step_traffic(n).bandwidth_gbs(rate)};
}

// The summary of a run on one process, as pk-gbees writes it to JSON.
template <class Space>
nlohmann::json summary(const Space& space, const std::string& model, int n, const Parameters& p,
                       const std::string& command, const RunResult& r) {
  const Statistics& st = r.statistics;
  const RunFigures f = figures(n, r);
  const MemoryBreakdown& per_slot = f.per_slot;
  const StepTraffic& traffic = f.traffic;
  nlohmann::json j;
  j["model"] = model;
  j["space"] = pk::SpaceTraits<Space>::name;
  j["device"] = pk::describe_device(space);
  j["command"] = command;
  j["commit"] = pk::build_commit();
  j["completed"] = r.completed;
  j["interrupted"] = !r.completed && r.stopped.empty();
  if (!r.stopped.empty()) j["stopped"] = r.stopped;
  j["final_time"] = r.final_time;
  j["dimension"] = n;
  j["members"] = member_count(p);
  j["steps"] = st.steps;
  j["max_cells"] = st.max_cells;
  j["cell_steps"] = st.cell_steps;
  j["wall_seconds"] = r.seconds;
  j["snapshot_seconds"] = {
      {"cells", r.cells_seconds}, {"monte_carlo", r.monte_carlo_seconds}, {"marginals", r.marginals_seconds}};
  j["cells_per_second"] = f.cells_per_second;
  j["bytes_per_cell"] = f.bytes_per_cell;
  j["bytes_per_cell_slot"] = {{"state", per_slot.state},           {"fluxes", per_slot.fluxes},
                              {"neighbours", per_slot.neighbours}, {"hash_map", per_slot.hash_map},
                              {"scratch", per_slot.scratch},       {"sort_scratch", per_slot.sort_scratch},
                              {"total", per_slot.total()}};
  j["bytes_per_cell_step"] = {{"grow", traffic.grow},
                              {"neighbours_fluxes_cfl", traffic.neighbours_fluxes_cfl},
                              {"corner_transport", traffic.corner_transport},
                              {"update", traffic.update},
                              {"normalise", traffic.normalise},
                              {"total", traffic.total()}};
  j["model_bandwidth_gbs"] = f.model_gbs;
  j["pruned_probability"] = st.pruned_probability;
  j["clipped_probability"] = st.clipped_probability;
  j["outflow_probability"] = st.outflow_probability;
  j["back_face_outflow"] = p.back_face_outflow;
  j["map_rehashes"] = st.map_rehashes;
  j["checkpoints"] = r.checkpoints;
  nlohmann::json curve = nlohmann::json::array();
  for (const Snapshot& s : r.snapshots) {
    nlohmann::json e{{"label", s.label},
                     {"time", s.time},
                     {"cells", s.cells},
                     {"kept_probability", s.kept_probability},
                     {"pruned_probability", s.so_far.pruned_probability},
                     {"clipped_probability", s.so_far.clipped_probability},
                     {"outflow_probability", s.so_far.outflow_probability}};
    if (s.bc >= 0) e["bhattacharyya"] = s.bc;
    if (!s.marginal_bc.empty()) {
      e["marginal_bhattacharyya"] = s.marginal_bc;
      e["monte_carlo_effective_size"] = s.mc_effective_size;
    }
    curve.push_back(e);
  }
  j["snapshots"] = curve;
  return j;
}

// The summary's line on stdout, and one for each snapshot compared with Monte Carlo.
void print_summary(const std::string& space, const std::string& model, int n, const Parameters& p, const RunResult& r) {
  const RunFigures f = figures(n, r);
  std::cout << space << ": " << model << " " << n << "-D"
            << (p.member_means.empty() ? "" : ", " + std::to_string(member_count(p)) + " PDFs")
            << " to t = " << fixed(r.final_time, 4)
            << (r.completed         ? ""
                : r.stopped.empty() ? " (interrupted)"
                                    : " (stopped)")
            << ": " << r.statistics.steps << " steps, max " << r.statistics.max_cells << " cells, "
            << fixed(r.seconds, 3) << " s, " << fixed(f.cells_per_second / 1e6, 3) << " M cells/s, "
            << fixed(f.bytes_per_cell, 1) << " B/cell at peak (" << fixed(f.per_slot.total(), 1) << " B per slot), "
            << fixed(f.model_gbs, 1) << " GB/s at " << fixed(f.traffic.total(), 0) << " B per cell-step\n";
  for (const Snapshot& s : r.snapshots)
    if (!s.marginal_bc.empty()) {
      std::cout << "  " << s.label << "  cells " << s.cells << "  BC vs Monte Carlo "
                << (s.bc >= 0 ? fixed(s.bc, 4) : "(no KDE)") << ", 1-D marginals without a KDE";
      for (double bc : s.marginal_bc) std::cout << " " << fixed(bc, 4);
      std::cout << " (" << static_cast<long long>(s.mc_effective_size) << " effective samples)\n";
    }
}

// Sec. 5.2.2's temporal convergence study, into the summary `j`: a reference run at epsilon
// = 0.01, then epsilon = 1, 0.5, 0.2, 0.1, compared at the snapshot times. Returns why a run of
// it stopped early (a grid that outgrew the memory), or nothing.
template <class Space, class Model>
std::string convergence_study(const Space& space, const Model& model, const Parameters& p,
                              const std::vector<double>& times, const Options& o, nlohmann::json& j) {
  std::cout << "  convergence study (1-norm E(t) and BC vs epsilon = 0.01):\n";
  Parameters reference_p = p;
  reference_p.epsilon = 0.01;
  RunOutputs compared;
  compared.keep_grids = true;
  const RunResult reference = run_once(space, model, reference_p, times, o, 0, o.progress_seconds > 0, compared);
  std::string stopped = reference.stopped;
  nlohmann::json study = nlohmann::json::array();
  for (double eps : {1.0, 0.5, 0.2, 0.1}) {
    if (!reference.completed) break;
    Parameters q = p;
    q.epsilon = eps;
    const RunResult run = run_once(space, model, q, times, o, 0, false, compared);
    stopped = run.stopped;
    if (!run.completed) break;
    nlohmann::json e{{"epsilon", eps}, {"steps", run.statistics.steps}};
    nlohmann::json errors = nlohmann::json::array();
    std::cout << "    epsilon " << eps << " (" << run.statistics.steps << " steps):";
    for (std::size_t k = 0; k < run.snapshots.size() && k < reference.snapshots.size(); ++k) {
      const GridComparison c = compare(*run.snapshots[k].grid, *reference.snapshots[k].grid);
      errors.push_back(
          {{"label", run.snapshots[k].label}, {"one_norm", c.one_norm}, {"bhattacharyya", c.bhattacharyya}});
      std::cout << " " << run.snapshots[k].label << " E=" << fixed(c.one_norm, 5);
    }
    std::cout << "\n";
    e["errors"] = errors;
    study.push_back(e);
  }
  j["convergence"] = {{"reference_epsilon", 0.01},
                      {"reference_steps", reference.statistics.steps},
                      {"runs", study},
                      {"completed", !pk::interrupted() && stopped.empty()}};
  if (pk::interrupted() || !stopped.empty()) {
    j["completed"] = false;
    j["interrupted"] = pk::interrupted();
  }
  if (!stopped.empty()) j["stopped"] = "convergence study: " + stopped;
  return stopped;
}

// The run's record (--results): its figures and the last comparison with Monte Carlo.
template <class Space>
void write_record(const Space& space, const std::string& model, int n, const Parameters& p, const Options& o,
                  const std::string& command, const RunResult& r) {
  const RunFigures f = figures(n, r);
  const std::string case_name = model + (p.member_means.empty() ? "" : "-ensemble-" + std::to_string(member_count(p)));
  pk::ResultRecord record{"gbees", case_name,   pk::SpaceTraits<Space>::name, pk::describe_device(space), command,
                          {},      !r.completed};
  record.metrics = {{"wall_seconds", r.seconds},
                    {"steps", double(r.statistics.steps)},
                    {"max_cells", double(r.statistics.max_cells)},
                    {"cells_per_second", f.cells_per_second},
                    {"bytes_per_cell", f.bytes_per_cell},
                    {"bytes_per_cell_step", f.traffic.total()},
                    {"model_bandwidth_gbs", f.model_gbs}};
  for (auto it = r.snapshots.rbegin(); it != r.snapshots.rend(); ++it)
    if (!it->marginal_bc.empty()) {
      if (it->bc >= 0) record.metrics["bhattacharyya_final"] = it->bc;
      record.metrics["marginal_bhattacharyya_final_min"] =
          *std::min_element(it->marginal_bc.begin(), it->marginal_bc.end());
      break;
    }
  std::cout << "  result: " << pk::write_result(record, o.results) << "\n";
}

// pk-gbees on one process and one space: the run, its summary and record, the convergence
// study, the marginals plotted.
template <class Space, class Model>
void run_space(const Space& space, const Model& model, const Setup& setup, const std::string& command) {
  const Parameters& p = setup.p;
  const Options& o = setup.o;
  const std::string name = pk::SpaceTraits<Space>::name;
  const int n = model.dimension();
  // Refuse up front what cannot fit: the grid at the most cells the run may hold, and the
  // Monte Carlo samples (device, and host for the KDE).
  const double planned_cells = std::max(initial_cell_count(p), static_cast<double>(p.max_cells));
  pk::require_memory(space, planned_bytes(n, planned_cells) + 16.0 * (n + 1) * o.mc_samples,
                     fixed(planned_cells, 0) + " cells (" + fixed(bytes_per_slot(n).total(), 0) +
                         " B per cell slot) and " + std::to_string(o.mc_samples) + " Monte Carlo samples",
                     fewer_cells(n));
  const std::vector<double> times = snapshot_times(p, o.snapshots);
  const std::string stem = "gbees-" + Model::name() + "-" + name;
  RunOutputs outputs;  // an ensemble's marginals: one folder per PDF, member-1, member-2, ...
  outputs.checkpointed = true;
  for (int e = 0; e < member_count(p); ++e)
    outputs.marginal_dirs.push_back(o.out + "/" + stem +
                                    (p.member_means.empty() ? "" : "/member-" + std::to_string(e + 1)));
  const RunResult r = run_once(space, model, p, times, o, o.mc_samples, o.progress_seconds > 0, outputs);
  nlohmann::json j = summary(space, Model::name(), n, p, command, r);
  print_summary(name, Model::name(), n, p, r);
  // An interrupted study keeps the runs that completed.
  const std::string study_stopped = o.convergence && r.completed ? convergence_study(space, model, p, times, o, j) : "";
  const std::string path = o.out + "/" + stem + ".json";
  pk::write_file(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  std::cout << "  summary: " << path << ", marginals: " << o.out << "/" << stem << "/\n";
  if (!o.results.empty()) write_record(space, Model::name(), n, p, o, command, r);
  for (const std::string& dir : outputs.marginal_dirs) {
    if (!o.plot || pk::interrupted() || !r.stopped.empty()) break;
    plot_marginals(setup.python, dir);
  }
  if (!r.stopped.empty()) {  // one line and status 2, the run until then written
    const std::string when =
        " at t = " + fixed(r.final_time, 4) + " (" + std::to_string(r.statistics.max_cells) + " cells)";
    throw pk::Error(name + ": " +
                    (r.out_of_memory ? "the grid outgrew the memory" + when + ": " + r.stopped + "; " +
                                           fewer_cells(n)(0.9 * pk::available_bytes(space))
                                     : r.stopped + when) +
                    "; the run until then is in " + path);
  }
  pk::require(study_stopped.empty(), name, ": the convergence study stopped: ", study_stopped,
              "; the run and the study until then are in ", path);
  if (pk::interrupted()) std::cout << "  interrupted: summary of the run so far written\n";
}

// Before the work: the folders of the summary and the record can be written.
void require_writable_outputs(const Options& o) {
  pk::require_writable_directory(o.out, "--out");
  if (!o.results.empty()) pk::require_writable_directory(o.results, "--results");
}

#if PK_ENABLE_MPI
// pk-gbees on several ranks: checkpoints, Monte Carlo and the convergence study are one
// rank's (refused here).
void run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  const Options& o = setup.o;
  pk::mpi::collectively(world, [&] {
    pk::require(o.checkpoint.path.empty() && o.checkpoint.restart.empty() && o.mc_samples == 0 && !o.convergence,
                "on several MPI ranks pk-gbees runs without --checkpoint, --restart, --mc-samples and "
                "--convergence (run those on one rank)");
    if (world.rank() == 0) require_writable_outputs(o);
  });
  pk::mpi::for_each_space_until_interrupted(world, setup.spaces, [&](const auto& space) {
    with_model(o, setup.dimension, [&](const auto& model) { run_distributed(world, space, model, setup, command); });
  });
}
#endif

// pk-gbees on one process: each space in turn.
void run(const Setup& setup, const std::string& command) {
  require_writable_outputs(setup.o);
  pk::for_each_space_until_interrupted(setup.spaces, [&](const auto& space) {
    pk::refuse_if_out_of_memory(space, "the run", fewer_cells(setup.dimension), [&] {
      with_model(setup.o, setup.dimension, [&](const auto& model) { run_space(space, model, setup, command); });
    });
  });
}

// The command line (and --config) read and checked, before Kokkos starts; empty when --help
// was answered.
std::optional<Setup> parse(int argc, char** argv) {
  Setup setup;
  Options& o = setup.o;
  CLI::App cli{"GBEES: sparse-grid Fokker-Planck uncertainty propagation (Lorenz '63 / '96, PCR3BP, CR3BP)"};
  add_options(cli, o);
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;
  setup.kokkos_args = *kokkos_args;
  setup.dimension = model_dimension(o);
  setup.p = build_parameters(o, setup.dimension);
  setup.spaces = pk::select_spaces(o.space);
  pk::check_checkpoint_options(o.checkpoint);
  if (!o.checkpoint.path.empty() || !o.checkpoint.restart.empty()) {
    pk::require(setup.spaces.size() == 1,
                "--checkpoint and --restart: a checkpoint holds a run on one space; choose it with --space");
    pk::require(o.mc_samples == 0 && !o.convergence,
                "--checkpoint and --restart: not with --mc-samples or --convergence (their runs keep no checkpoint)");
  }
  setup.python = o.plot ? plotting_python() : "";
  return setup;
}

}  // namespace

int main(int argc, char** argv) {
  pk::load_gpu_kernels_at_start();
#if PK_ENABLE_MPI
  return pk::program_main("pk-gbees", argc, argv, parse, run, run_ranks);
#else
  return pk::program_main("pk-gbees", argc, argv, parse, run);
#endif
}
