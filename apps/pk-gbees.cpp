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

#include <pk/app/cli.hpp>
#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/checkpoint.hpp>
#include <pk/core/data_files.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/gbees/checkpoint.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/parameters.hpp>
#include <pk/gbees/solver.hpp>
#if PK_ENABLE_MPI
#include <pk/gbees/distributed_solver.hpp>
#endif

#include <nlohmann/json.hpp>

#if PK_ENABLE_MPI
#include <pk/app/mpi_program.hpp>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

namespace {

using namespace pk::gbees;
using namespace pk::gbees::app;

std::string fixed(double v, int digits = 4) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// A Python that has matplotlib, for --plot: PK_PYTHON when set, else Debian's (which
// python3-matplotlib serves), else python3 on PATH (a pyenv or conda one may lack it).
std::string plotting_python() {
  std::vector<std::string> candidates = {"/usr/bin/python3", "python3"};
  if (const char* chosen = std::getenv("PK_PYTHON")) candidates = {chosen};
  for (const std::string& python : candidates)
    if (pk::program_succeeds({python, "-c", "import matplotlib"})) return python;
  throw pk::Error("--plot needs a Python with matplotlib, and " +
                  (candidates.size() == 1 ? "PK_PYTHON=" + candidates[0] : "neither /usr/bin/python3 nor python3") +
                  " has it: install it (Debian: apt-get install python3-matplotlib; elsewhere: python3 -m pip "
                  "install matplotlib) or set PK_PYTHON to a Python that has it");
}

// Snapshot times: snapshots+1 equally spaced times in [0, end] and every measurement time.
std::vector<double> snapshot_times(const Parameters& p, int snapshots) {
  std::vector<double> t;
  for (int k = 0; k <= snapshots; ++k) t.push_back(p.end_time * k / snapshots);
  for (const auto& m : p.measurements) t.push_back(m.time);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end(), [](double a, double b) { return std::fabs(a - b) < 1e-12; }), t.end());
  return t;
}

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

// The marginals a snapshot writes: each axis', and the 2-D ones of the first three axes.
std::vector<std::vector<int>> marginal_axes(int n) {
  std::vector<std::vector<int>> axes;
  for (int a = 0; a < n; ++a) axes.push_back({a});
  const int shown = std::min(n, 3);
  for (int a = 0; a < shown; ++a)
    for (int b = a + 1; b < shown; ++b) axes.push_back({a, b});
  return axes;
}

// DIR/marginal-LABEL-x1.csv, DIR/marginal-LABEL-x1x2.csv, ...
std::string marginal_path(const std::string& dir, const std::string& label, const std::vector<int>& axes) {
  std::string path = dir + "/marginal-" + label + "-";
  for (int a : axes) path += "x" + std::to_string(a + 1);
  return path + ".csv";
}

// The marginals of `cells` labelled `label` in `dirs`: one folder, or one per PDF of an ensemble.
void write_marginals(const HostCells& cells, const std::string& label, const std::vector<std::string>& dirs) {
  const std::vector<std::vector<int>> axes = marginal_axes(cells.n);
  const auto write = [&](const HostCells& shown, const std::string& dir) {
    pk::make_directories(dir);
    const std::vector<Marginal> m = marginals(shown, axes);
    for (std::size_t k = 0; k < axes.size(); ++k) write_csv(m[k], marginal_path(dir, label, axes[k]));
  };
  if (dirs.size() == 1)
    write(cells, dirs[0]);
  else
    for (std::size_t e = 0; e < dirs.size(); ++e) write(member_cells(cells, static_cast<int>(e)), dirs[e]);
}

// apps/plot_gbees.py over the marginals in `dir`.
void plot_marginals(const std::string& python, const std::string& dir) {
  const std::vector<std::string> call = {python, pk::data_file("plot_gbees.py", PK_GBEES_PLOT_SCRIPT), dir};
  const int status = pk::run_program(call);
  pk::require(status == 0, "plotting with ", python, " ", call[1], " failed (status ", status, ")");
}

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

// The header of this run's checkpoints: the options that define it (files by content).
pk::CheckpointHeader run_header(const std::string& space, const Options& o, const Parameters& p,
                                const std::vector<double>& times) {
  pk::CheckpointHeader h;
  h.program = "pk-gbees";
  h.space = space;
  const auto list = [](const std::vector<double>& values) {
    std::string text;
    for (double v : values) text += (text.empty() ? "" : ",") + pk::exact_number(v);
    return text;
  };
  h.options.emplace_back(
      "model",
      o.model + (o.model == "lorenz96" ? " " + std::to_string(o.dimension) + " F " + pk::exact_number(o.forcing) : ""));
  h.options.emplace_back("mu", o.mu ? pk::exact_number(*o.mu) : "default");
  h.options.emplace_back("mean", list(p.initial_mean));
  h.options.emplace_back("std", list(p.initial_std));
  h.options.emplace_back("h", list(p.cell_width));
  h.options.emplace_back("threshold", pk::exact_number(p.threshold));
  h.options.emplace_back("epsilon", pk::exact_number(p.epsilon));
  h.options.emplace_back("prune-interval", std::to_string(p.prune_interval));
  h.options.emplace_back("initial-extent", pk::exact_number(p.initial_extent));
  h.options.emplace_back("end-time", pk::exact_number(p.end_time));
  h.options.emplace_back("back-face-outflow", p.back_face_outflow ? "1" : "0");
  h.options.emplace_back("max-cells", std::to_string(p.max_cells));
  h.options.emplace_back("snapshot-times", list(times));
  std::string measurements, ensemble;
  for (const Measurement& m : p.measurements) {
    measurements += pk::exact_number(m.time) + ":";
    for (int k = 0; k < m.count; ++k)
      measurements +=
          std::to_string(m.component[k]) + "=" + pk::exact_number(m.value[k]) + "~" + pk::exact_number(m.std[k]) + ";";
  }
  for (const std::vector<double>& mean : p.member_means) ensemble += list(mean) + ";";
  h.options.emplace_back("measurements", std::to_string(p.measurements.size()) + ", crc32 " +
                                             std::to_string(pk::crc32(measurements.data(), measurements.size())));
  h.options.emplace_back("ensemble", std::to_string(p.member_means.size()) + ", crc32 " +
                                         std::to_string(pk::crc32(ensemble.data(), ensemble.size())));
  return h;
}

// The cells of an n-D grid that fit in the bytes a run may use, and what to lower.
pk::MemoryAdvice fewer_cells(int n) {
  return [n](double bytes) {
    return "about " + fixed(bytes / planned_bytes(n, 1), 0) +
           " cells fit: set --max-cells below that, or raise --threshold or the cell widths --h";
  };
}

// What run_once does besides the run: marginals written to `marginal_dirs` (none: not
// written), the snapshots' grids kept for a comparison, checkpoints and a restart.
struct RunOutputs {
  std::vector<std::string> marginal_dirs;
  bool keep_grids = false;
  bool checkpointed = false;
};

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
  std::size_t next_measurement = 0;
  const bool restart = checkpointed && !o.checkpoint.restart.empty();
  if (restart)
    files.read(o.checkpoint.restart, header, [&](pk::CheckpointReader& reader) {
      const pk::CheckpointHeader& h = reader.header();
      pk::require(h.integer_value("rebuilt") == 1 || std::fabs(h.real_value("time") - p.end_time) < 1e-12, "--restart ",
                  reader.path(), ": a checkpoint of a run's end that is not at --end-time");
      next_measurement = static_cast<std::size_t>(h.integer_value("next-measurement"));
      State::read(reader, solver);
    });
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
  auto take = [&](const std::string& suffix) {
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
      if (o.mc_kde) s.bc = mc->bhattacharyya(cells, p.threshold);
      s.marginal_bc = mc->marginal_bhattacharyya(cells);
      s.mc_effective_size = mc->effective_size();
      r.monte_carlo_seconds += part.seconds();
    }
    part.reset();
    if (!outputs.marginal_dirs.empty()) write_marginals(cells, s.label, outputs.marginal_dirs);
    r.marginals_seconds += part.seconds();
    if (outputs.keep_grids) s.grid = std::move(cells);
    r.snapshots.push_back(std::move(s));
  };
  double last_print = 0;
  Kokkos::Timer wall;
  auto observer = [&](const StepInfo& info) {
    if (progress && wall.seconds() - last_print >= o.progress_seconds) {
      last_print = wall.seconds();
      const double elapsed = r.seconds + timer.seconds();
      const double rate = info.cell_steps / elapsed;
      const double eta = info.time > 0 ? elapsed * (p.end_time - info.time) / info.time : 0;
      std::fprintf(stderr, "\rt %.4f / %.4f  step %lld  cells %lld  %.3g cells/s  ETA %.0f s   ", info.time, p.end_time,
                   static_cast<long long>(info.step), static_cast<long long>(info.cells), rate, eta);
    }
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
  if (progress && last_print > 0) std::fprintf(stderr, "\n");
  if (r.completed || State::can_continue(solver)) write_checkpoint();  // none when this step's exists
  r.statistics = solver.statistics();
  r.final_time = solver.time();
  r.checkpoints = files.written();
  return r;
}

template <class Space, class Model>
nlohmann::json run_space(const Space& space, const Model& model, const Parameters& p, const Options& o,
                         const std::string& command, const std::string& python) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const int n = model.dimension();
  // Refuse up front what cannot fit: the grid at the most cells the run may hold, and the
  // Monte Carlo samples (device, and host for the KDE).
  const MemoryBreakdown per_slot = bytes_per_slot(n);
  const double planned_cells = std::max(initial_cell_count(p), static_cast<double>(p.max_cells));
  pk::require_memory(space, planned_bytes(n, planned_cells) + 16.0 * (n + 1) * o.mc_samples,
                     fixed(planned_cells, 0) + " cells (" + fixed(per_slot.total(), 0) + " B per cell slot) and " +
                         std::to_string(o.mc_samples) + " Monte Carlo samples",
                     fewer_cells(n));

  const std::vector<double> times = snapshot_times(p, o.snapshots);
  const std::string stem = "gbees-" + Model::name() + "-" + name;
  // An ensemble's marginals: one folder per PDF, member-1, member-2, ...
  RunOutputs outputs;
  outputs.checkpointed = true;
  for (int e = 0; e < member_count(p); ++e)
    outputs.marginal_dirs.push_back(o.out + "/" + stem +
                                    (p.member_means.empty() ? "" : "/member-" + std::to_string(e + 1)));
  const std::vector<std::string>& marginal_dirs = outputs.marginal_dirs;
  RunResult r = run_once(space, model, p, times, o, o.mc_samples, o.progress_seconds > 0, outputs);

  const Statistics& st = r.statistics;
  const double cells_per_second = st.cell_steps / r.seconds;
  const double bytes_per_cell = st.peak_bytes / std::max<std::int64_t>(1, st.max_cells);
  const StepTraffic traffic = step_traffic(n);
  const double model_gbs = traffic.bandwidth_gbs(cells_per_second);
  nlohmann::json j;
  j["model"] = Model::name();
  j["space"] = name;
  j["device"] = pk::describe_device(space);
  j["command"] = command;
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
  j["cells_per_second"] = cells_per_second;
  j["bytes_per_cell"] = bytes_per_cell;
  j["bytes_per_cell_slot"] = {{"state", per_slot.state},           {"fluxes", per_slot.fluxes},
                              {"neighbours", per_slot.neighbours}, {"hash_map", per_slot.hash_map},
                              {"scratch", per_slot.scratch},       {"total", per_slot.total()}};
  j["bytes_per_cell_step"] = {{"grow", traffic.grow},
                              {"neighbours_fluxes_cfl", traffic.neighbours_fluxes_cfl},
                              {"corner_transport", traffic.corner_transport},
                              {"update", traffic.update},
                              {"normalise", traffic.normalise},
                              {"total", traffic.total()}};
  j["model_bandwidth_gbs"] = model_gbs;
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

  std::cout << name << ": " << Model::name() << " " << n << "-D"
            << (p.member_means.empty() ? "" : ", " + std::to_string(member_count(p)) + " PDFs")
            << " to t = " << fixed(r.final_time, 4)
            << (r.completed         ? ""
                : r.stopped.empty() ? " (interrupted)"
                                    : " (stopped)")
            << ": " << st.steps << " steps, max " << st.max_cells << " cells, " << fixed(r.seconds, 3) << " s, "
            << fixed(cells_per_second / 1e6, 3) << " M cells/s, " << fixed(bytes_per_cell, 1) << " B/cell at peak ("
            << fixed(per_slot.total(), 1) << " B per slot), " << fixed(model_gbs, 1) << " GB/s at "
            << fixed(traffic.total(), 0) << " B per cell-step\n";
  for (const Snapshot& s : r.snapshots)
    if (!s.marginal_bc.empty()) {
      std::cout << "  " << s.label << "  cells " << s.cells << "  BC vs Monte Carlo "
                << (s.bc >= 0 ? fixed(s.bc, 4) : "(no KDE)") << ", 1-D marginals without a KDE";
      for (double bc : s.marginal_bc) std::cout << " " << fixed(bc, 4);
      std::cout << " (" << static_cast<long long>(s.mc_effective_size) << " effective samples)\n";
    }

  std::string study_stopped;           // why a run of the study stopped early (a grid that outgrew the memory)
  if (o.convergence && r.completed) {  // an interrupted study keeps the runs that completed
    // Sec. 5.2.2: reference epsilon = 0.01, then epsilon = 1, 0.5, 0.2, 0.1 at the snapshot times.
    std::cout << "  convergence study (1-norm E(t) and BC vs epsilon = 0.01):\n";
    Parameters ref_p = p;
    ref_p.epsilon = 0.01;
    Options quiet = o;
    RunOutputs compared;
    compared.keep_grids = true;
    const RunResult reference = run_once(space, model, ref_p, times, quiet, 0, o.progress_seconds > 0, compared);
    study_stopped = reference.stopped;
    nlohmann::json study = nlohmann::json::array();
    for (double eps : {1.0, 0.5, 0.2, 0.1}) {
      if (!reference.completed) break;
      Parameters q = p;
      q.epsilon = eps;
      const RunResult run = run_once(space, model, q, times, quiet, 0, false, compared);
      study_stopped = run.stopped;
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
                        {"completed", !pk::interrupted() && study_stopped.empty()}};
    if (pk::interrupted() || !study_stopped.empty()) {
      j["completed"] = false;
      j["interrupted"] = pk::interrupted();
    }
    if (!study_stopped.empty()) j["stopped"] = "convergence study: " + study_stopped;
  }

  const std::string path = o.out + "/" + stem + ".json";
  pk::write_file(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  std::cout << "  summary: " << path << ", marginals: " << o.out << "/" << stem << "/\n";
  if (!o.results.empty()) {
    const std::string case_name =
        Model::name() + (p.member_means.empty() ? "" : "-ensemble-" + std::to_string(member_count(p)));
    pk::ResultRecord record{"gbees", case_name, name, pk::describe_device(space), command, {}, !r.completed};
    record.metrics = {{"wall_seconds", r.seconds},         {"steps", double(st.steps)},
                      {"max_cells", double(st.max_cells)}, {"cells_per_second", cells_per_second},
                      {"bytes_per_cell", bytes_per_cell},  {"bytes_per_cell_step", traffic.total()},
                      {"model_bandwidth_gbs", model_gbs}};
    for (auto it = r.snapshots.rbegin(); it != r.snapshots.rend(); ++it)
      if (!it->marginal_bc.empty()) {
        if (it->bc >= 0) record.metrics["bhattacharyya_final"] = it->bc;
        record.metrics["marginal_bhattacharyya_final_min"] =
            *std::min_element(it->marginal_bc.begin(), it->marginal_bc.end());
        break;
      }
    const std::string result_path = pk::write_result(record, o.results);
    std::cout << "  result: " << result_path << "\n";
  }
  for (const std::string& dir : marginal_dirs) {
    if (!o.plot || pk::interrupted() || !r.stopped.empty()) break;
    plot_marginals(python, dir);
  }
  if (!r.stopped.empty()) {  // one line and status 2, the run until then written
    const std::string when = " at t = " + fixed(r.final_time, 4) + " (" + std::to_string(st.max_cells) + " cells)";
    throw pk::Error(name + ": " +
                    (r.out_of_memory ? "the grid outgrew the memory" + when + ": " + r.stopped + "; " +
                                           fewer_cells(n)(0.9 * pk::available_bytes(space))
                                     : r.stopped + when) +
                    "; the run until then is in " + path);
  }
  pk::require(study_stopped.empty(), name, ": the convergence study stopped: ", study_stopped,
              "; the run and the study until then are in ", path);
  if (pk::interrupted()) std::cout << "  interrupted: summary of the run so far written\n";
  return j;
}

// Before the work: the folders of the summary and the record can be written.
void require_writable_outputs(const Options& o) {
  pk::require_writable_directory(o.out, "--out");
  if (!o.results.empty()) pk::require_writable_directory(o.results, "--results");
}

#if PK_ENABLE_MPI
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
  double seconds = timer.seconds(), last_print = 0;
  Kokkos::Timer wall;
  const auto observer = [&](const StepInfo& info) {
    if (root && o.progress_seconds > 0 && wall.seconds() - last_print >= o.progress_seconds) {
      last_print = wall.seconds();
      std::fprintf(stderr, "\rt %.4f / %.4f  step %lld  cells %lld on %d ranks  %.3g cells/s   ", info.time, p.end_time,
                   static_cast<long long>(info.step), static_cast<long long>(info.cells), world.size(),
                   info.cell_steps / (seconds + timer.seconds()));
    }
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
  if (root && last_print > 0) std::fprintf(stderr, "\n");
  seconds = world.max(seconds);
  // The slowest rank's share of the time in each phase between the kernels.
  const auto spent = solver->communication_seconds();
  const double communicating = world.max(spent.reductions + spent.staging + spent.inserting) / seconds;
  const nlohmann::json shares{{"reduction_share", world.max(spent.reductions) / seconds},
                              {"exchange_share", world.max(spent.staging) / seconds},
                              {"insert_share", world.max(spent.inserting) / seconds}};
  const Statistics st = solver->statistics();
  const double peak_bytes = world.max(st.peak_bytes), peak_bytes_all = world.sum(st.peak_bytes);
  const double cells_per_second = st.cell_steps / seconds;
  const double bytes_per_cell = peak_bytes * world.size() / std::max<double>(1, static_cast<double>(st.max_cells));
  if (!root) return !completed;
  nlohmann::json j{{"model", Model::name()},
                   {"space", name},
                   {"device", pk::describe_device(space)},
                   {"command", command},
                   {"ranks", world.size()},
                   {"slab_axis", solver->geometry().slab.axis + 1},
                   {"completed", completed},
                   {"interrupted", !completed},
                   {"final_time", solver->time()},
                   {"dimension", n},
                   {"members", member_count(p)},
                   {"steps", st.steps},
                   {"max_cells", st.max_cells},
                   {"cell_steps", st.cell_steps},
                   {"wall_seconds", seconds},
                   {"cells_per_second", cells_per_second},
                   {"communication_share", communicating},
                   {"communication", shares},
                   {"peak_bytes_per_rank", peak_bytes},
                   {"peak_bytes_all_ranks", peak_bytes_all},
                   {"bytes_per_cell", bytes_per_cell},
                   {"pruned_probability", st.pruned_probability},
                   {"clipped_probability", st.clipped_probability},
                   {"outflow_probability", st.outflow_probability},
                   {"snapshots", snapshots}};
  const std::string path = o.out + "/" + stem + ".json";
  pk::write_file(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  std::cout << name << ": " << Model::name() << " " << n << "-D on " << world.size() << " ranks (slabs along axis "
            << solver->geometry().slab.axis + 1 << ") to t = " << fixed(solver->time(), 4)
            << (completed ? "" : " (interrupted)") << ": " << st.steps << " steps, max " << st.max_cells << " cells, "
            << fixed(seconds, 3) << " s, " << fixed(cells_per_second / 1e6, 3) << " M cells/s ("
            << fixed(cells_per_second / 1e6 / world.size(), 3) << " a rank), " << fixed(100 * communicating, 1)
            << " % of the time in exchanges and reductions, " << fixed(bytes_per_cell, 1) << " B/cell at peak\n"
            << "  summary: " << path << ", marginals: " << marginal_dir << "/\n";
  if (!o.results.empty()) {
    pk::ResultRecord record{
        "gbees",   Model::name() + "-np" + std::to_string(world.size()), name, pk::describe_device(space), command, {},
        !completed};
    record.metrics = {{"wall_seconds", seconds},
                      {"steps", static_cast<double>(st.steps)},
                      {"max_cells", static_cast<double>(st.max_cells)},
                      {"cells_per_second", cells_per_second},
                      {"cells_per_second_per_rank", cells_per_second / world.size()},
                      {"ranks", static_cast<double>(world.size())},
                      {"communication_share", communicating},
                      {"bytes_per_cell", bytes_per_cell}};
    for (const auto& phase : shares.items()) record.metrics[phase.key()] = phase.value();
    std::cout << "  result: " << pk::write_result(record, o.results) << "\n";
  }
  if (o.plot && completed) plot_marginals(setup.python, marginal_dir);
  if (!completed) std::cout << "  interrupted: summary of the run so far written\n";
  return !completed;
}

// pk-gbees on several ranks: checkpoints, Monte Carlo and the convergence study are one
// rank's (refused here).
int run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  const Options& o = setup.o;
  pk::mpi::collectively(world, [&] {
    pk::require(o.checkpoint.path.empty() && o.checkpoint.restart.empty() && o.mc_samples == 0 && !o.convergence,
                "on several MPI ranks pk-gbees runs without --checkpoint, --restart, --mc-samples and "
                "--convergence (run those on one rank)");
    if (world.rank() == 0) require_writable_outputs(o);
  });
  bool stopped = false;
  pk::for_each_selected_space(setup.spaces, [&](const auto& space) {
    if (stopped) return;
    with_model(o, setup.dimension,
               [&](const auto& model) { stopped = run_distributed(world, space, model, setup, command); });
  });
  return stopped ? static_cast<int>(world.max(pk::interrupted() ? pk::interrupted_status() : 0)) : 0;
}
#endif

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
  pk::bind_openmp_threads_by_default(argv);
#if PK_ENABLE_MPI
  pk::mpi::Environment mpi(argc, argv);
  if (mpi.ranks() > 1) return pk::mpi::run_program("pk-gbees", argc, argv, parse, run_ranks);
#endif
  return pk::run_app("pk-gbees", [&]() -> int {
    const std::optional<Setup> setup = parse(argc, argv);
    if (!setup) return 0;
    const Options& o = setup->o;
    require_writable_outputs(o);
    pk::Session session(setup->kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    pk::for_each_selected_space(setup->spaces, [&](const auto& space) {
      if (pk::interrupted()) return;
      pk::refuse_if_out_of_memory(space, "the run", fewer_cells(setup->dimension), [&] {
        with_model(o, setup->dimension,
                   [&](const auto& model) { run_space(space, model, setup->p, o, command, setup->python); });
      });
    });
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
