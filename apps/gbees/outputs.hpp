#pragma once
// What pk-gbees writes besides its summary, and the pieces of a run it names: numbers in
// fixed notation, snapshot times, marginals as CSV (and PNG through apps/plot_gbees.py), the
// header of its checkpoints and the advice when a grid does not fit.
#include "options.hpp"

#include <pk/core/checkpoint.hpp>
#include <pk/core/memory.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/parameters.hpp>
#include <pk/gbees/statistics.hpp>

#include <Kokkos_Timer.hpp>

#include <string>
#include <vector>

namespace pk::gbees::app {

// `v` with `digits` decimals.
std::string fixed(double v, int digits = 4);

// A Python that has matplotlib, for --plot: PK_PYTHON when set, else Debian's (which
// python3-matplotlib serves), else python3 on PATH (a pyenv or conda one may lack it).
std::string plotting_python();

// Snapshot times: snapshots+1 equally spaced times in [0, end] and every measurement time.
std::vector<double> snapshot_times(const Parameters& p, int snapshots);

// The marginals a snapshot writes: each axis', and the 2-D ones of the first three axes.
std::vector<std::vector<int>> marginal_axes(int n);

// DIR/marginal-LABEL-x1.csv, DIR/marginal-LABEL-x1x2.csv, ...
std::string marginal_path(const std::string& dir, const std::string& label, const std::vector<int>& axes);

// The marginals of `cells` labelled `label` in `dirs`: one folder, or one per PDF of an ensemble.
void write_marginals(const HostCells& cells, const std::string& label, const std::vector<std::string>& dirs);

// apps/plot_gbees.py over the marginals in `dir`.
void plot_marginals(const std::string& python, const std::string& dir);

// The header of a run's checkpoints: the options that define it (files by content).
CheckpointHeader run_header(const std::string& space, const Options& o, const Parameters& p,
                            const std::vector<double>& times);

// A line on stderr, at most every `every` seconds (0: never), while a run advances to
// `end_time` (on `ranks` ranks): its time, step, cells, rate and, on one rank, when it ends.
class ProgressLine {
 public:
  ProgressLine(double every, double end_time, int ranks = 1) : every_(every), end_time_(end_time), ranks_(ranks) {}
  // `elapsed`: the run's seconds so far.
  void show(const StepInfo& info, double elapsed);
  // Ends the line, when one was shown.
  void finish() const;

 private:
  double every_, end_time_, last_ = 0;
  int ranks_;
  Kokkos::Timer wall_;
};

// The cells of an n-D grid that fit in the bytes a run may use, and what to lower.
MemoryAdvice fewer_cells(int n);

}  // namespace pk::gbees::app
