#pragma once
// A copy of the GBEES grid on the host and what is computed from it there: marginals,
// the Bhattacharyya coefficient and the 1-norm distance between two grids (the marginals and
// the 1-D comparison on Kokkos' host threads: Kokkos initialised).
#include <cstdint>
#include <string>
#include <vector>

namespace pk::gbees {

struct HostCells {
  int n = 0;
  double time = 0;
  std::vector<double> cell_width;   // h_j
  std::vector<double> origin;       // the centre of the cell of index 0 on each axis
  std::vector<std::uint64_t> key;   // packed index (same packing for grids of one run)
  std::vector<std::int64_t> index;  // cell c, axis d at c * n + d
  std::vector<double> probability;  // sums to 1 (over each PDF of an ensemble)
  std::vector<int> member;          // the PDF of an ensemble each cell belongs to (empty: all 0)
  std::size_t size() const { return probability.size(); }
  // The centre of the cells of index i on axis d, and that of cell c.
  double coordinate(int d, std::int64_t i) const { return origin[d] + cell_width[d] * static_cast<double>(i); }
  double centre(std::size_t c, int d) const { return coordinate(d, index[c * n + d]); }
};

// The cells of PDF `member` of an ensemble (Parameters::member_means), in their order.
HostCells member_cells(const HostCells& cells, int member);

// A marginal on one axis (or two): density per unit length (area) at the cell centres.
struct Marginal {
  std::vector<int> axes;           // 0-based
  std::vector<double> coordinate;  // point p, axis k at p * axes.size() + k
  std::vector<double> density;
};
Marginal marginal(const HostCells& cells, const std::vector<int>& axes);
// Several marginals in one pass over the cells (the same as one marginal() each).
std::vector<Marginal> marginals(const HostCells& cells, const std::vector<std::vector<int>>& axes);
// CSV with a header "x<a>[,x<b>],density"; throws pk::Error when it cannot be written.
void write_csv(const Marginal& marginal, const std::string& path);

// The PDF as GBEES reports it: the cells at or above the threshold p*, renormalised to sum 1.
// The cells below p* are the grid's fringe, kept so that probability can flow into them;
// the paper's code records only the others, and its BC values (Table 1) are over those.
HostCells above_threshold(const HostCells& cells, double threshold);

// BC = sum_i sqrt(p_i q_i) (eq. 9) for two distributions on the same cells.
double bhattacharyya(const std::vector<double>& p, const std::vector<double>& q);
// The same over the cells of `cells` at or above the threshold, both distributions
// renormalised over them (what above_threshold gives), for q known on every cell.
double bhattacharyya_above_threshold(const HostCells& cells, const std::vector<double>& q, double threshold);

// BC between the grid's 1-D marginal along each axis and that of weighted samples (sample
// k, axis d at k * n + d) binned on the grid's cells along that axis: a comparison that needs
// no kernel density estimate. A sample outside the grid's bins falls in a bin the grid lacks.
std::vector<double> marginal_bhattacharyya(const HostCells& cells, const std::vector<double>& samples,
                                           const std::vector<double>& weights);

// E = sum over the union of cells of |P_a - P_b| (the 1-norm of sec. 5.2.2 for cell
// probabilities P = p prod h), and BC over the union; cells are matched by key.
struct GridComparison {
  double one_norm = 0;
  double bhattacharyya = 0;
};
GridComparison compare(const HostCells& a, const HostCells& b);

}  // namespace pk::gbees
