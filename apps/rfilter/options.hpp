#pragma once
// pk-3dvar's command line, read and checked before Kokkos starts, the sizes that refuse a run
// too large for its memory, and the options that define a run's checkpoints.
#include <pk/core/checkpoint.hpp>
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/core/memory.hpp>
#include <pk/rfilter/chunked_filter.hpp>
#include <pk/rfilter/synthetic.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pk::rfilter::app {

struct Options {
  std::string space = "all", out = "pk-results", observation_file;
  std::vector<int> grid{64, 64, 16};
  std::vector<double> sigma{3.0};
  int iterations = 4;  // K
  long observations = 2000;
  double observation_std = 0.1, background_std = 0.5, tolerance = 1e-6;
  int max_iterations = 500;
  int chunks = 4;              // the chunked-filter check along x
  std::optional<int> overlap;  // default: 2.5 sigma
  unsigned long seed = 7;
  bool h5 = false;  // the fields as HDF5
  CheckpointOptions checkpoint;
};

// The command line, checked before Kokkos starts.
struct Setup {
  Options o;
  SyntheticSettings settings;
  ObservationSet file_observations;
  Chunking chunking;
  std::vector<std::string> spaces, kokkos_args;
};

// Nothing when --help was answered; pk::Error for bad input.
std::optional<Setup> parse(int argc, char** argv);

// Bytes a run holds per grid point and per observation: the fields, CG's and the chunked
// check's vectors (16 doubles a point); observations on host and device (16 doubles each).
inline double planned_bytes(long points, long observations) { return 8.0 * 16 * (points + observations); }

// "a NX x NY x NZ grid with M observations", as messages name a run.
std::string problem_name(const Grid& grid, long observations);

// The grid points that fit in the bytes a run may use on each of `ranks`, and what to lower.
MemoryAdvice smaller_grid(long observations, int ranks = 1);

// The header of this run's checkpoints: the options that define the analysis (on several
// ranks also the overlap, which changes V).
CheckpointHeader run_header(const std::string& space, const Setup& setup, int ranks);

}  // namespace pk::rfilter::app
