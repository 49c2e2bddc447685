#include "options.hpp"

#include <pk/app/checkpoint_options.hpp>
#include <pk/core/backend_names.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/details/config_file.hpp>
#include <pk/core/error.hpp>

#include <cstdio>

namespace pk::gbees::app {

void add_options(CLI::App& cli, Options& o) {
  cli.set_config("--config", "", "read options from an INI/TOML file (key = value, keys as the long options)");
  cli.add_option("--space", o.space, backend_choices() + ", a comma-separated list, or all");
  cli.add_option("--model", o.model, "lorenz63, lorenz96, pcr3bp or cr3bp")
      ->check(CLI::IsMember({"lorenz63", "lorenz96", "pcr3bp", "cr3bp"}));
  cli.add_option("--dimension", o.dimension, "Lorenz '96 variables n (2..8, L96 needs >= 4)");
  cli.add_option("--forcing", o.forcing, "Lorenz '96 forcing F");
  cli.add_option_function<double>(
      "--mu", [&o](double v) { o.mu = v; }, "three-body mass ratio in (0, 0.5] (default: the case's)");
  cli.add_option("--mean", o.mean, "initial mean (n values, or 1 for all)")->delimiter(',');
  cli.add_option("--std", o.std_dev, "initial standard deviations (n values or 1)")->delimiter(',');
  cli.add_option("--h", o.h, "cell widths (n values or 1)")->delimiter(',');
  cli.add_option_function<double>(
      "--threshold", [&o](double v) { o.threshold = v; }, "probability threshold p* in (0,1) (default: the paper's)");
  cli.add_option("--epsilon", o.epsilon, "time step = epsilon * CFL limit, in (0,1]");
  cli.add_option("--prune-interval", o.prune_interval, "steps between prunes");
  cli.add_option("--initial-extent", o.initial_extent, "initial box half-width in standard deviations");
  cli.add_option("--initial-cells", o.initial_cells,
                 "box: every cell of the initial box (the paper's); above-threshold: only its cells at or above p* "
                 "(what the first prune keeps), for grids whose box would not fit")
      ->check(CLI::IsMember({"box", "above-threshold"}));
  cli.add_option_function<double>(
      "--end-time", [&o](double v) { o.end_time = v; }, "final time (default: the paper's)");
  input_file_option(
      cli.add_option("--measurement-file", o.measurement_file, "measurements: lines 'time component value std'"));
  input_file_option(cli.add_option("--ensemble", o.ensemble_file,
                                   "an ensemble of PDFs in one grid: a file of initial means, n values per line "
                                   "(grid centred on --mean)"));
  cli.add_flag("--no-measurements", o.no_measurements,
               "no measurement: neither the model's default nor a --measurement-file (a config's too)");
  cli.add_flag("--paper-back-faces", o.paper_back_faces,
               "no flux through a backward face with no cell behind it (the paper's codes; default: outflow leaves)");
  cli.add_option("--snapshots", o.snapshots, "equally spaced snapshot intervals (plus measurement times)");
  cli.add_option("--mc-samples", o.mc_samples, "Monte Carlo samples for the BC curve (0: off)");
  cli.add_option("--mc-kde", o.mc_kde,
                 "compare with the samples' KDE on the cells (cells x samples evaluations) as well as on the 1-D "
                 "marginals; false: the marginals only (grids of many millions of cells)")
      ->capture_default_str();
  cli.add_flag("--convergence", o.convergence, "also run the epsilon convergence study (sec. 5.2.2)");
  cli.add_option("--max-cells", o.max_cells, "refuse runs that need more cells (0: as memory allows)");
  cli.add_option("--progress", o.progress_seconds, "seconds between progress lines on stderr (0: none)");
  cli.add_option("--out", o.out, "directory for the summary JSON and the marginal CSVs");
  cli.add_option("--results", o.results, "also write a pk result record (e.g. perf/results)");
  cli.add_flag("--plot", o.plot, "draw the marginals as PNG with python3 + matplotlib");
  cli.add_option("--slab-axis", o.slab_axis,
                 "on several MPI ranks: the axis (1..n) the grid is cut along into slabs (0: the one the initial "
                 "PDF spans most cells of)")
      ->check(CLI::Range(0, max_dimension));
  add_checkpoint_options(cli, o.checkpoint, "steps");
}

bool three_body(const std::string& model) { return model == "pcr3bp" || model == "cr3bp"; }

int model_dimension(const Options& o) {
  if (o.model == "lorenz63") return 3;
  if (o.model == "pcr3bp") return 4;
  if (o.model == "cr3bp") return 6;
  return o.dimension;
}

namespace {

Parameters default_parameters(const Options& o, int n) {
  if (o.model == "lorenz63") return lorenz63_paper();
  if (o.model == "pcr3bp") return pcr3bp_enceladus();
  if (o.model == "cr3bp") return cr3bp_europa();
  return lorenz96_paper(n, o.forcing);
}

}  // namespace

Parameters build_parameters(const Options& o, int n) {
  if (o.model == "lorenz96")
    require(o.dimension >= 4 && o.dimension <= max_dimension, "--dimension ", o.dimension, ": Lorenz '96 needs 4 to ",
            max_dimension, " variables");
  Parameters p = default_parameters(o, n);
  require(o.slab_axis <= n, "--slab-axis ", o.slab_axis, ": the model has ", n, " axes");
  if (o.mu) {
    char given[32];
    std::snprintf(given, sizeof given, "%g", *o.mu);
    require(three_body(o.model),
            std::string("--mu ") + given + ": only the three-body models (pcr3bp, cr3bp) have a mass ratio");
    require(*o.mu > 0 && *o.mu <= 0.5, std::string("--mu ") + given + ": the mass ratio must lie in (0, 0.5]");
  }
  auto broadcast = [&](const std::vector<double>& v, std::vector<double>& target, const std::string& what) {
    if (v.empty()) return;
    require(v.size() == 1 || static_cast<int>(v.size()) == n,
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
  p.initial_above_threshold = o.initial_cells == "above-threshold";
  require(o.max_cells >= 0 && o.max_cells < 2e9, "--max-cells ", o.max_cells, ": must lie in [0, 2e9)");
  p.max_cells = static_cast<std::size_t>(o.max_cells);
  if (o.no_measurements)
    p.measurements.clear();
  else if (!o.measurement_file.empty())
    p.measurements = read_measurements(o.measurement_file, n);
  if (!o.ensemble_file.empty()) {
    std::string layout = "x1";
    for (int d = 2; d <= n; ++d) layout += " x" + std::to_string(d);
    for (const ColumnRow& row : read_columns(o.ensemble_file, n, layout)) p.member_means.push_back(row.values);
    require(!p.member_means.empty(), "ensemble file " + o.ensemble_file + ": holds no initial mean");
    require(o.mc_samples == 0, "--mc-samples: the Monte Carlo reference follows one PDF, not an --ensemble");
  }
  validate(p, n);
  require(o.snapshots >= 1 && o.snapshots <= 1000,
          "--snapshots " + std::to_string(o.snapshots) + ": must lie in 1..1000");
  require(o.mc_samples == 0 || (o.mc_samples >= 100 && o.mc_samples <= max_mc_samples),
          "--mc-samples " + std::to_string(o.mc_samples) + ": 0 (off) or 100 to " + std::to_string(max_mc_samples));
  require(o.progress_seconds >= 0, "--progress must be >= 0 seconds");
  return p;
}

}  // namespace pk::gbees::app
