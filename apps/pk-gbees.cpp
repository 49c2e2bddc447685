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
#include <pk/core/app.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/cli.hpp>
#include <pk/core/data_files.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/core/process.hpp>
#include <pk/core/results.hpp>
#include <pk/core/session.hpp>
#include <pk/core/space_selection.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/monte_carlo.hpp>
#include <pk/gbees/parameters.hpp>
#include <pk/gbees/solver.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

namespace {

using namespace pk::gbees;

// Keeps the Monte Carlo reference finite in time and memory.
constexpr std::int64_t max_mc_samples = 100000000;

struct Options {
  std::string model = "lorenz63";
  int dimension = 6;         // Lorenz '96 only
  double forcing = 4;        // Lorenz '96 only
  std::optional<double> mu;  // three-body models only (default: the case's)
  std::vector<double> mean, std_dev, h;
  std::optional<double> threshold, end_time;  // default: the paper's
  double epsilon = 1, initial_extent = 3;
  int prune_interval = 20;
  std::string measurement_file;
  std::string ensemble_file;  // initial means of an ensemble, one PDF per line
  bool no_measurements = false;
  bool paper_back_faces = false;
  int snapshots = 6;
  std::int64_t mc_samples = 0;
  bool convergence = false;
  double max_cells = 0;
  double progress_seconds = 2;
  std::string out = "pk-gbees-out";
  std::string results;  // directory for a pk::ResultRecord (perf/results)
  bool plot = false;
};

std::string fixed(double v, int digits = 4) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

bool three_body(const std::string& model) { return model == "pcr3bp" || model == "cr3bp"; }

int model_dimension(const Options& o) {
  if (o.model == "lorenz63") return 3;
  if (o.model == "pcr3bp") return 4;
  if (o.model == "cr3bp") return 6;
  return o.dimension;
}

Parameters default_parameters(const Options& o, int n) {
  if (o.model == "lorenz63") return lorenz63_paper();
  if (o.model == "pcr3bp") return pcr3bp_enceladus();
  if (o.model == "cr3bp") return cr3bp_europa();
  return lorenz96_paper(n, o.forcing);
}

Parameters build_parameters(const Options& o, int n) {
  Parameters p = default_parameters(o, n);
  if (o.mu) {
    char given[32];
    std::snprintf(given, sizeof given, "%g", *o.mu);
    pk::require(three_body(o.model),
                std::string("--mu ") + given + ": only the three-body models (pcr3bp, cr3bp) have a mass ratio");
    pk::require(*o.mu > 0 && *o.mu <= 0.5, std::string("--mu ") + given + ": the mass ratio must lie in (0, 0.5]");
  }
  auto broadcast = [&](const std::vector<double>& v, std::vector<double>& target, const std::string& what) {
    if (v.empty()) return;
    pk::require(v.size() == 1 || static_cast<int>(v.size()) == n,
                what + " has " + std::to_string(v.size()) + " values: give 1 or " + std::to_string(n));
    target = v.size() == 1 ? std::vector<double>(n, v[0]) : v;
  };
  broadcast(o.mean, p.initial_mean, "--mean");
  broadcast(o.std_dev, p.initial_std, "--std");
  broadcast(o.h, p.cell_width, "--h");
  if (o.threshold) p.threshold = *o.threshold;
  if (o.end_time) p.end_time = *o.end_time;
  p.epsilon = o.epsilon;
  p.prune_interval = o.prune_interval;
  p.back_face_outflow = !o.paper_back_faces;
  p.initial_extent = o.initial_extent;
  pk::require(o.max_cells >= 0 && o.max_cells < 2e9, "--max-cells " + fixed(o.max_cells, 0) + ": must lie in [0, 2e9)");
  p.max_cells = static_cast<std::size_t>(o.max_cells);
  if (o.no_measurements) p.measurements.clear();
  if (!o.measurement_file.empty()) p.measurements = read_measurements(o.measurement_file, n);
  if (!o.ensemble_file.empty()) {
    std::string layout = "x1";
    for (int d = 2; d <= n; ++d) layout += " x" + std::to_string(d);
    for (const pk::ColumnRow& row : pk::read_columns(o.ensemble_file, n, layout)) p.member_means.push_back(row.values);
    pk::require(!p.member_means.empty(), "ensemble file " + o.ensemble_file + ": holds no initial mean");
    pk::require(o.mc_samples == 0, "--mc-samples: the Monte Carlo reference follows one PDF, not an --ensemble");
  }
  validate(p, n);
  pk::require(o.snapshots >= 1 && o.snapshots <= 1000,
              "--snapshots " + std::to_string(o.snapshots) + ": must lie in 1..1000");
  pk::require(o.mc_samples == 0 || (o.mc_samples >= 100 && o.mc_samples <= max_mc_samples),
              "--mc-samples " + std::to_string(o.mc_samples) + ": 0 (off) or 100 to " + std::to_string(max_mc_samples));
  pk::require(o.progress_seconds >= 0, "--progress must be >= 0 seconds");
  return p;
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

struct Snapshot {
  std::string label;  // "t=1.000000-" before a measurement, "+" after
  HostCells cells;
  double bc = -1;  // vs Monte Carlo, when run
};

void write_marginals(const Snapshot& s, const std::string& dir, const std::string& stem) {
  pk::make_directories(dir);
  const int n = s.cells.n;
  for (int a = 0; a < n; ++a)
    write_csv(marginal(s.cells, {a}), dir + "/" + stem + "-" + s.label + "-x" + std::to_string(a + 1) + ".csv");
  const int shown = std::min(n, 3);  // 2-D marginals of the first three axes
  for (int a = 0; a < shown; ++a)
    for (int b = a + 1; b < shown; ++b)
      write_csv(marginal(s.cells, {a, b}),
                dir + "/" + stem + "-" + s.label + "-x" + std::to_string(a + 1) + "x" + std::to_string(b + 1) + ".csv");
}

struct RunResult {
  std::vector<Snapshot> snapshots;
  Statistics statistics;
  double seconds = 0;  // solver time only (no Monte Carlo, KDE or output)
  bool completed = true;
  double final_time = 0;
};

// One GBEES run, snapshots at `times` (and before/after each measurement), optionally
// compared with Monte Carlo.
template <class Space, class Model>
RunResult run_once(const Space& space, const Model& model, const Parameters& p, const std::vector<double>& times,
                   const Options& o, std::int64_t mc_samples, bool progress) {
  RunResult r;
  Kokkos::Timer timer;
  Solver<Space, Model> solver(space, model, p);
  space.fence();
  r.seconds += timer.seconds();
  std::unique_ptr<MonteCarlo<Space, Model>> mc;
  if (mc_samples > 0) mc = std::make_unique<MonteCarlo<Space, Model>>(space, model, p, mc_samples);
  auto take = [&](const std::string& suffix) {
    Snapshot s;
    s.cells = solver.cells();
    s.label = "t" + fixed(solver.time(), 4) + suffix;
    if (mc) {
      mc->advance_to(solver.time());
      s.bc = mc->bhattacharyya(s.cells, p.threshold);
    }
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
      std::fprintf(stderr, "\rt %.4f / %.4f  step %lld  cells %d  %.3g cells/s  ETA %.0f s   ", info.time, p.end_time,
                   static_cast<long long>(info.step), info.cells, rate, eta);
    }
    return !pk::interrupted();
  };
  take("");
  std::size_t next_measurement = 0;
  for (double t : times) {
    if (t <= solver.time()) continue;
    timer.reset();
    const bool done = solver.advance_to(t, observer);
    space.fence();
    r.seconds += timer.seconds();
    if (!done) {
      r.completed = false;
      break;
    }
    const bool measure =
        next_measurement < p.measurements.size() && std::fabs(p.measurements[next_measurement].time - t) < 1e-12;
    take(measure ? "-" : "");
    if (measure) {
      timer.reset();
      solver.measure(p.measurements[next_measurement]);
      space.fence();
      r.seconds += timer.seconds();
      if (mc) mc->measure(p.measurements[next_measurement]);
      take("+");
      ++next_measurement;
    }
  }
  if (progress && last_print > 0) std::fprintf(stderr, "\n");
  r.statistics = solver.statistics();
  r.final_time = solver.time();
  return r;
}

template <class Space, class Model>
nlohmann::json run_space(const Space& space, const Model& model, const Parameters& p, const Options& o,
                         const std::string& command) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const int n = model.dimension();
  // Refuse up front what cannot fit: the grid at the most cells the run may hold, and the
  // Monte Carlo samples (device, and host for the KDE).
  const MemoryBreakdown per_slot = bytes_per_slot(n);
  const double planned_cells = std::max(initial_cell_count(p), static_cast<double>(p.max_cells));
  pk::require_memory(space, planned_bytes(n, planned_cells) + 16.0 * (n + 1) * o.mc_samples,
                     fixed(planned_cells, 0) + " cells (" + fixed(per_slot.total(), 0) + " B per cell slot) and " +
                         std::to_string(o.mc_samples) + " Monte Carlo samples");

  const std::vector<double> times = snapshot_times(p, o.snapshots);
  RunResult r = run_once(space, model, p, times, o, o.mc_samples, o.progress_seconds > 0);
  const std::string stem = "gbees-" + Model::name() + "-" + name;
  // An ensemble's marginals: one folder per PDF, member-1, member-2, ...
  std::vector<std::string> marginal_dirs;
  for (int e = 0; e < member_count(p); ++e)
    marginal_dirs.push_back(o.out + "/" + stem + (p.member_means.empty() ? "" : "/member-" + std::to_string(e + 1)));
  for (const Snapshot& s : r.snapshots) {
    if (p.member_means.empty()) {
      write_marginals(s, marginal_dirs[0], "marginal");
      continue;
    }
    for (int e = 0; e < member_count(p); ++e) {
      Snapshot one{s.label, member_cells(s.cells, e), s.bc};
      write_marginals(one, marginal_dirs[e], "marginal");
    }
  }

  const Statistics& st = r.statistics;
  const double cells_per_second = st.cell_steps / r.seconds;
  const double bytes_per_cell = st.peak_bytes / std::max(1, st.max_cells);
  nlohmann::json j;
  j["model"] = Model::name();
  j["space"] = name;
  j["device"] = pk::describe_device(space);
  j["command"] = command;
  j["completed"] = r.completed;
  j["interrupted"] = !r.completed;
  j["final_time"] = r.final_time;
  j["dimension"] = n;
  j["members"] = member_count(p);
  j["steps"] = st.steps;
  j["max_cells"] = st.max_cells;
  j["cell_steps"] = st.cell_steps;
  j["wall_seconds"] = r.seconds;
  j["cells_per_second"] = cells_per_second;
  j["bytes_per_cell"] = bytes_per_cell;
  j["bytes_per_cell_slot"] = {{"state", per_slot.state},           {"fluxes", per_slot.fluxes},
                              {"neighbours", per_slot.neighbours}, {"hash_map", per_slot.hash_map},
                              {"scratch", per_slot.scratch},       {"total", per_slot.total()}};
  j["pruned_probability"] = st.pruned_probability;
  j["clipped_probability"] = st.clipped_probability;
  j["outflow_probability"] = st.outflow_probability;
  j["back_face_outflow"] = p.back_face_outflow;
  j["map_rehashes"] = st.map_rehashes;
  nlohmann::json curve = nlohmann::json::array();
  for (const Snapshot& s : r.snapshots) {
    nlohmann::json e{{"label", s.label}, {"time", s.cells.time}, {"cells", s.cells.size()}};
    if (s.bc >= 0) e["bhattacharyya"] = s.bc;
    curve.push_back(e);
  }
  j["snapshots"] = curve;

  std::cout << name << ": " << Model::name() << " " << n << "-D"
            << (p.member_means.empty() ? "" : ", " + std::to_string(member_count(p)) + " PDFs")
            << " to t = " << fixed(r.final_time, 4) << (r.completed ? "" : " (interrupted)") << ": " << st.steps
            << " steps, max " << st.max_cells << " cells, " << fixed(r.seconds, 3) << " s, "
            << fixed(cells_per_second / 1e6, 3) << " M cells/s, " << fixed(bytes_per_cell, 1) << " B/cell at peak ("
            << fixed(per_slot.total(), 1) << " B per slot)\n";
  for (const Snapshot& s : r.snapshots)
    if (s.bc >= 0)
      std::cout << "  " << s.label << "  cells " << s.cells.size() << "  BC vs Monte Carlo " << fixed(s.bc, 4) << "\n";

  if (o.convergence && r.completed) {  // an interrupted study keeps the runs that completed
    // Sec. 5.2.2: reference epsilon = 0.01, then epsilon = 1, 0.5, 0.2, 0.1 at the snapshot times.
    std::cout << "  convergence study (1-norm E(t) and BC vs epsilon = 0.01):\n";
    Parameters ref_p = p;
    ref_p.epsilon = 0.01;
    Options quiet = o;
    const RunResult reference = run_once(space, model, ref_p, times, quiet, 0, o.progress_seconds > 0);
    nlohmann::json study = nlohmann::json::array();
    for (double eps : {1.0, 0.5, 0.2, 0.1}) {
      if (!reference.completed) break;
      Parameters q = p;
      q.epsilon = eps;
      const RunResult run = run_once(space, model, q, times, quiet, 0, false);
      if (!run.completed) break;
      nlohmann::json e{{"epsilon", eps}, {"steps", run.statistics.steps}};
      nlohmann::json errors = nlohmann::json::array();
      std::cout << "    epsilon " << eps << " (" << run.statistics.steps << " steps):";
      for (std::size_t k = 0; k < run.snapshots.size() && k < reference.snapshots.size(); ++k) {
        const GridComparison c = compare(run.snapshots[k].cells, reference.snapshots[k].cells);
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
                        {"completed", !pk::interrupted()}};
    if (pk::interrupted()) {
      j["completed"] = false;
      j["interrupted"] = true;
    }
  }

  const std::string path = o.out + "/" + stem + ".json";
  pk::write_file(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
  std::cout << "  summary: " << path << ", marginals: " << o.out << "/" << stem << "/\n";
  if (!o.results.empty()) {
    const std::string case_name =
        Model::name() + (p.member_means.empty() ? "" : "-ensemble-" + std::to_string(member_count(p)));
    pk::ResultRecord record{"gbees", case_name, name, pk::describe_device(space), command, {}, !r.completed};
    record.metrics = {{"wall_seconds", r.seconds},
                      {"steps", double(st.steps)},
                      {"max_cells", double(st.max_cells)},
                      {"cells_per_second", cells_per_second},
                      {"bytes_per_cell", bytes_per_cell}};
    for (auto it = r.snapshots.rbegin(); it != r.snapshots.rend(); ++it)
      if (it->bc >= 0) {
        record.metrics["bhattacharyya_final"] = it->bc;
        break;
      }
    const std::string result_path = pk::write_result(record, o.results);
    std::cout << "  result: " << result_path << "\n";
  }
  for (const std::string& dir : marginal_dirs) {
    if (!o.plot || pk::interrupted()) break;
    const std::vector<std::string> call = {"python3", pk::data_file("plot_gbees.py", PK_GBEES_PLOT_SCRIPT), dir};
    const int status = pk::run_program(call);
    pk::require(status == 0, "plotting with python3 " + call[1] + " failed (status " + std::to_string(status) + ")");
  }
  if (pk::interrupted()) std::cout << "  interrupted: summary of the run so far written\n";
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  return pk::run_app("pk-gbees", [&]() -> int {
    Options o;
    std::string space_request = "all";
    CLI::App cli{"GBEES: sparse-grid Fokker-Planck uncertainty propagation (Lorenz '63 / '96, PCR3BP, CR3BP)"};
    cli.set_config("--config", "", "read options from an INI/TOML file (key = value, keys as the long options)");
    cli.add_option("--space", space_request, pk::backend_choices() + ", a comma-separated list, or all");
    cli.add_option("--model", o.model, "lorenz63, lorenz96, pcr3bp or cr3bp")
        ->check(CLI::IsMember({"lorenz63", "lorenz96", "pcr3bp", "cr3bp"}));
    cli.add_option("--dimension", o.dimension, "Lorenz '96 variables n (2..8, L96 needs >= 4)");
    cli.add_option("--forcing", o.forcing, "Lorenz '96 forcing F");
    cli.add_option_function<double>(
        "--mu", [&](double v) { o.mu = v; }, "three-body mass ratio in (0, 0.5] (default: the case's)");
    cli.add_option("--mean", o.mean, "initial mean (n values, or 1 for all)")->delimiter(',');
    cli.add_option("--std", o.std_dev, "initial standard deviations (n values or 1)")->delimiter(',');
    cli.add_option("--h", o.h, "cell widths (n values or 1)")->delimiter(',');
    cli.add_option_function<double>(
        "--threshold", [&](double v) { o.threshold = v; }, "probability threshold p* in (0,1) (default: the paper's)");
    cli.add_option("--epsilon", o.epsilon, "time step = epsilon * CFL limit, in (0,1]");
    cli.add_option("--prune-interval", o.prune_interval, "steps between prunes");
    cli.add_option("--initial-extent", o.initial_extent, "initial box half-width in standard deviations");
    cli.add_option_function<double>(
        "--end-time", [&](double v) { o.end_time = v; }, "final time (default: the paper's)");
    cli.add_option("--measurement-file", o.measurement_file, "measurements: lines 'time component value std'");
    cli.add_option("--ensemble", o.ensemble_file,
                   "an ensemble of PDFs in one grid: a file of initial means, n values per line (grid centred on "
                   "--mean)");
    cli.add_flag("--no-measurements", o.no_measurements, "ignore the model's default measurement");
    cli.add_flag("--paper-back-faces", o.paper_back_faces,
                 "no flux through a backward face with no cell behind it (the paper's codes; default: outflow leaves)");
    cli.add_option("--snapshots", o.snapshots, "equally spaced snapshot intervals (plus measurement times)");
    cli.add_option("--mc-samples", o.mc_samples, "Monte Carlo samples for the BC curve (0: off)");
    cli.add_flag("--convergence", o.convergence, "also run the epsilon convergence study (sec. 5.2.2)");
    cli.add_option("--max-cells", o.max_cells, "refuse runs that need more cells (0: as memory allows)");
    cli.add_option("--progress", o.progress_seconds, "seconds between progress lines on stderr (0: none)");
    cli.add_option("--out", o.out, "directory for the summary JSON and the marginal CSVs");
    cli.add_option("--results", o.results, "also write a pk result record (e.g. perf/results)");
    cli.add_flag("--plot", o.plot, "draw the marginals as PNG with python3 + matplotlib");
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;
    const int n = model_dimension(o);
    if (o.model == "lorenz96")
      pk::require(o.dimension >= 4 && o.dimension <= max_dimension, "--dimension " + std::to_string(o.dimension) +
                                                                        ": Lorenz '96 needs 4 to " +
                                                                        std::to_string(max_dimension) + " variables");
    const Parameters p = build_parameters(o, n);
    const std::vector<std::string> spaces = pk::select_spaces(space_request);
    pk::make_directories(o.out);
    pk::Session session(*kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    pk::for_each_selected_space(spaces, [&](const auto& space) {
      if (pk::interrupted()) return;
      if (o.model == "lorenz63")
        run_space(space, Lorenz63{}, p, o, command);
      else if (o.model == "pcr3bp")
        run_space(space, o.mu ? PCR3BP{*o.mu} : PCR3BP{}, p, o, command);
      else if (o.model == "cr3bp")
        run_space(space, o.mu ? CR3BP{*o.mu} : CR3BP{}, p, o, command);
      else
        run_space(space, Lorenz96{n, o.forcing}, p, o, command);
    });
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
