#include "outputs.hpp"

#include <pk/app/process.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/data_files.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/grid_memory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pk::gbees::app {

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

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

std::vector<double> snapshot_times(const Parameters& p, int snapshots) {
  std::vector<double> t;
  for (int k = 0; k <= snapshots; ++k) t.push_back(p.end_time * k / snapshots);
  for (const auto& m : p.measurements) t.push_back(m.time);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end(), [](double a, double b) { return std::fabs(a - b) < 1e-12; }), t.end());
  return t;
}

std::vector<std::vector<int>> marginal_axes(int n) {
  std::vector<std::vector<int>> axes;
  for (int a = 0; a < n; ++a) axes.push_back({a});
  const int shown = std::min(n, 3);
  for (int a = 0; a < shown; ++a)
    for (int b = a + 1; b < shown; ++b) axes.push_back({a, b});
  return axes;
}

std::string marginal_path(const std::string& dir, const std::string& label, const std::vector<int>& axes) {
  std::string path = dir + "/marginal-" + label + "-";
  for (int a : axes) path += "x" + std::to_string(a + 1);
  return path + ".csv";
}

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

void plot_marginals(const std::string& python, const std::string& dir) {
  const std::vector<std::string> call = {python, pk::data_file("plot_gbees.py", PK_GBEES_PLOT_SCRIPT), dir};
  const int status = pk::run_program(call);
  pk::require(status == 0, "plotting with ", python, " ", call[1], " failed (status ", status, ")");
}

CheckpointHeader run_header(const std::string& space, const Options& o, const Parameters& p,
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

MemoryAdvice fewer_cells(int n) {
  return [n](double bytes) {
    return "about " + fixed(bytes / planned_bytes(n, 1), 0) +
           " cells fit: set --max-cells below that, or raise --threshold or the cell widths --h";
  };
}

void ProgressLine::show(const StepInfo& info, double elapsed) {
  if (every_ <= 0 || wall_.seconds() - last_ < every_) return;
  last_ = wall_.seconds();
  const double rate = info.cell_steps / elapsed;
  if (ranks_ > 1) {
    std::fprintf(stderr, "\rt %.4f / %.4f  step %lld  cells %lld on %d ranks  %.3g cells/s   ", info.time, end_time_,
                 static_cast<long long>(info.step), static_cast<long long>(info.cells), ranks_, rate);
    return;
  }
  const double eta = info.time > 0 ? elapsed * (end_time_ - info.time) / info.time : 0;
  std::fprintf(stderr, "\rt %.4f / %.4f  step %lld  cells %lld  %.3g cells/s  ETA %.0f s   ", info.time, end_time_,
               static_cast<long long>(info.step), static_cast<long long>(info.cells), rate, eta);
}

void ProgressLine::finish() const {
  if (last_ > 0) std::fprintf(stderr, "\n");
}

}  // namespace pk::gbees::app
