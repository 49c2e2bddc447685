#pragma once
// Run parameters of GBEES and their checks. Every value is validated before any device
// work; a bad one raises pk::Error naming the value and what is allowed. Free of Kokkos, so
// that the fuzz targets (tests/fuzz) build the measurement and configuration checks alone.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::gbees {

// The largest state dimension the solver handles (keys pack 64/n bits per axis).
inline constexpr int max_dimension = 8;

// A measurement y_k = x_{component_k} + noise, noise ~ N(0, std_k^2), taken at `time`
// (Bayes update, eq. 4, with a Gaussian likelihood).
struct Measurement {
  double time = 0;
  int count = 0;                      // observed components
  int component[max_dimension] = {};  // 0-based state components
  double value[max_dimension] = {};
  double std[max_dimension] = {};
};

struct Parameters {
  std::vector<double> initial_mean;  // Gaussian initial PDF, diagonal covariance
  std::vector<double> initial_std;
  std::vector<double> cell_width;  // h_j; the grid is centred on initial_mean
  double threshold = 5e-6;         // p*: cells above grow, cells below may be pruned
  double epsilon = 1.0;            // dt = epsilon * CFL limit (sec. 5.2.2)
  int prune_interval = 20;         // steps between prunes
  // A backward face with no cell behind it lets outflow (f_j < 0) leave the grid. false:
  // the paper's codes' rule, under which such a face carries no flux at all.
  bool back_face_outflow = true;
  double initial_extent = 3.0;  // initial box: +-round(extent * std / h) cells per axis
  // Only the box's cells at or above p* (those the first prune would keep; the others hold a
  // few percent of the probability), for grids whose whole box would not fit. false: the
  // whole box (the paper's).
  bool initial_above_threshold = false;
  double end_time = 1.0;
  std::vector<Measurement> measurements;  // increasing times in (0, end_time]
  std::size_t max_cells = 0;              // refuse to grow beyond (0: as memory allows)
  // An ensemble: the initial means of PDFs propagated together in one grid (the cell key
  // carries the PDF's number), each with initial_std, sharing the cell widths, the time
  // step (the smallest CFL limit of them all) and the measurements. Empty: one PDF, at
  // initial_mean. The grid's cell 0 is centred on initial_mean either way.
  std::vector<std::vector<double>> member_means;
};

// PDFs in a run: member_means.size(), or 1. At most max_members (16 bits of the key).
inline constexpr int max_members = 1 << 16;
inline int member_count(const Parameters& p) {
  return p.member_means.empty() ? 1 : static_cast<int>(p.member_means.size());
}
// Bits of the cell key that number the PDFs (0 for one).
inline int member_key_bits(const Parameters& p) {
  int bits = 0;
  while ((1 << bits) < member_count(p)) ++bits;
  return bits;
}

// Throws pk::Error when a value is out of range for a model of `dimension` variables.
void validate(const Parameters& parameters, int dimension);

// Reads measurements: one line per observed component, "time component value std"
// (component 1-based as in the paper's x_3); lines with the same time form one
// measurement; '#' starts a comment. Throws pk::Error on a missing file or a bad line.
std::vector<Measurement> read_measurements(const std::string& path, int dimension);
// The same for the content of a file; `source` names it in messages.
std::vector<Measurement> parse_measurements(const std::string& text, const std::string& source, int dimension);

// The paper's cases: Lorenz '63 (sec. 5.1.1, measurement x3 = -8, std 1 at t = 1, end t = 2)
// and Lorenz '96 (sec. 5.1.2, F = 4, mean (F + 0.5, F, ...), std 0.2, h = 0.1, end t = 1.3).
Parameters lorenz63_paper();
Parameters lorenz96_paper(int n = 6, double forcing = 4);

// The three-body cases of gbees-cuda (the GBEES-GPU code), without its measurements (range,
// bearing and range rate from the secondary: not component observations):
// PCR3BP about Enceladus (mu 1.9011e-7) to its first measurement, t = 0.93179, and
// CR3BP about Europa (mu 2.5280e-5) to t = 0.88958; p* = 1e-7, h = std / 2.
Parameters pcr3bp_enceladus();
Parameters cr3bp_europa();

// The initial boxes' half-width on axis j: round(extent std_j / h_j) cells.
std::int64_t initial_half_width(const Parameters& parameters, int j);
// The least unnormalised Gaussian exp(-|z|^2 / 2) a cell of an initial box keeps: 0 (every
// cell), or with initial_above_threshold p* times the Gaussian's sum over the box of a PDF
// whose mean lies `shift` (per axis) from the grid's, whose box is centred on the cell
// nearest that mean (a product of one sum per axis).
double initial_cut(const Parameters& parameters, const std::vector<double>& shift);
// The cells of axis j, counted from the one nearest a PDF's mean (which lies `shift` from
// the grid's), that can keep a Gaussian of at least `cut` (initial_cut): the initial box's
// -half..half, narrowed to where one axis alone leaves the Gaussian at or above the cut (a
// cell wider each side, for rounding); first > last when no cell can.
struct AxisRange {
  std::int64_t first, last;
};
AxisRange initial_axis_range(const Parameters& parameters, int j, double shift, double cut);
// Cells of the initial boxes: prod_j (2 initial_half_width + 1) per PDF, or with
// initial_above_threshold those of a box centred on its PDF's mean at or above p*, counted
// where that takes at most 2^26 steps and beyond (boxes of millions of cells and more) the
// ellipsoid's volume in cells, within the box.
double initial_cell_count(const Parameters& parameters);

}  // namespace pk::gbees
