#pragma once
// pk-gbees' options, from the command line or a --config file, and the run parameters they
// give. Free of Kokkos, so that the config fuzz target (tests/fuzz) reads files with the
// program's own options.
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/gbees/parameters.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pk::gbees::app {

// Keeps the Monte Carlo reference finite in time and memory.
inline constexpr std::int64_t max_mc_samples = 100000000;

struct Options {
  std::string space = "all";
  std::string model = "lorenz63";
  int dimension = 6;         // Lorenz '96 only
  double forcing = 4;        // Lorenz '96 only
  std::optional<double> mu;  // three-body models only (default: the case's)
  std::vector<double> mean, std_dev, h;
  std::optional<double> threshold, end_time;  // default: the paper's
  double epsilon = 1, initial_extent = 3;
  std::string initial_cells = "box";  // or "above-threshold"
  int prune_interval = 20;
  std::string measurement_file;
  std::string ensemble_file;  // initial means of an ensemble, one PDF per line
  bool no_measurements = false;
  bool paper_back_faces = false;
  int snapshots = 6;
  std::int64_t mc_samples = 0;
  bool mc_kde = true;  // the KDE on the cells (cells x samples kernel evaluations) beside the marginals
  bool convergence = false;
  double max_cells = 0;
  double progress_seconds = 2;
  std::string out = "pk-gbees-out";
  std::string results;  // directory for a pk::ResultRecord (perf/results)
  bool plot = false;
  int slab_axis = 0;  // several MPI ranks: the axis the slabs cut, 1-based (0: the initial PDF's widest)
  CheckpointOptions checkpoint;
};

// What pk-gbees runs: the options, the case they give, the spaces, Kokkos' own arguments,
// and the Python that plots (--plot).
struct Setup {
  Options o;
  Parameters p;
  int dimension = 0;
  std::vector<std::string> spaces;
  std::vector<std::string> kokkos_args;
  std::string python;
};

// Every option of pk-gbees, --config included, read into `o`.
void add_options(CLI::App& cli, Options& o);

bool three_body(const std::string& model);

// Variables of the model the options name.
int model_dimension(const Options& o);

// The case of the model with the options over it, and the measurement and ensemble files
// read: pk::Error for any value out of range.
Parameters build_parameters(const Options& o, int n);

}  // namespace pk::gbees::app
