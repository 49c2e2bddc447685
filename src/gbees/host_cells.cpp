#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/host_cells.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

namespace pk::gbees {

namespace {

// Bins of a marginal: its cells' summed probability and centre, in the lexicographic order
// of their indices on the marginal's axes (one or two; a second axis absent: index 0).
struct Bins {
  std::vector<std::array<double, 2>> centre;
  std::vector<double> probability;
};

// On a dense array over the bounding box of the indices, one pass over the cells (a 6-D grid
// has 21 marginals of millions of cells each, at every snapshot); only bins a cell falls in
// are kept.
Bins dense_bins(const HostCells& cells, const std::vector<int>& axes, const std::int64_t lo[2],
                const std::int64_t span[2]) {
  const std::size_t k = axes.size();
  std::vector<double> sum(static_cast<std::size_t>(span[0] * span[1]), 0.0);
  std::vector<std::size_t> first(sum.size(), cells.size());  // a cell in the bin (none: size)
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::size_t b = 0;
    for (std::size_t a = 0; a < k; ++a)
      b = b * static_cast<std::size_t>(span[a]) + static_cast<std::size_t>(cells.index[c * cells.n + axes[a]] - lo[a]);
    sum[b] += cells.probability[c];
    if (first[b] == cells.size()) first[b] = c;
  }
  Bins out;
  for (std::size_t b = 0; b < sum.size(); ++b) {
    if (first[b] == cells.size()) continue;
    std::array<double, 2> x{};
    for (std::size_t a = 0; a < k; ++a) x[a] = cells.position[first[b] * cells.n + axes[a]];
    out.centre.push_back(x);
    out.probability.push_back(sum[b]);
  }
  return out;
}

// In an ordered map, for cells spread too far for a dense array.
Bins sparse_bins(const HostCells& cells, const std::vector<int>& axes) {
  std::map<std::array<std::int64_t, 2>, std::pair<std::array<double, 2>, double>> bins;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::array<std::int64_t, 2> id{};
    std::array<double, 2> x{};
    for (std::size_t a = 0; a < axes.size(); ++a) {
      id[a] = cells.index[c * cells.n + axes[a]];
      x[a] = cells.position[c * cells.n + axes[a]];
    }
    auto& bin = bins[id];
    bin.first = x;
    bin.second += cells.probability[c];
  }
  Bins out;
  for (const auto& [id, bin] : bins) {
    out.centre.push_back(bin.first);
    out.probability.push_back(bin.second);
  }
  return out;
}

}  // namespace

Marginal marginal(const HostCells& cells, const std::vector<int>& axes) {
  require(!axes.empty() && axes.size() <= 2, "marginal: one or two axes");
  for (int a : axes) require(a >= 0 && a < cells.n, "marginal: axis " + std::to_string(a + 1) + " does not exist");
  const std::size_t k = axes.size();
  std::int64_t lo[2] = {0, 0}, span[2] = {1, 1};
  for (std::size_t a = 0; a < k && cells.size() > 0; ++a) {
    std::int64_t low = cells.index[axes[a]], high = low;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      low = std::min(low, cells.index[c * cells.n + axes[a]]);
      high = std::max(high, cells.index[c * cells.n + axes[a]]);
    }
    lo[a] = low;
    span[a] = high - low + 1;
  }
  const double dense_size = static_cast<double>(span[0]) * static_cast<double>(span[1]);
  const Bins bins = dense_size <= std::max(double(1 << 22), 2.0 * static_cast<double>(cells.size()))
                        ? dense_bins(cells, axes, lo, span)
                        : sparse_bins(cells, axes);
  double area = 1;
  for (int a : axes) area *= cells.cell_width[a];
  Marginal m;
  m.axes = axes;
  for (std::size_t b = 0; b < bins.probability.size(); ++b) {
    m.coordinate.insert(m.coordinate.end(), bins.centre[b].begin(), bins.centre[b].begin() + k);
    m.density.push_back(bins.probability[b] / area);
  }
  return m;
}

void write_csv(const Marginal& m, const std::string& path) {
  write_file(path, [&](std::ostream& out) {
    for (int a : m.axes) out << 'x' << a + 1 << ',';
    out << "density\n";
    out.precision(10);
    const std::size_t k = m.axes.size();
    for (std::size_t p = 0; p < m.density.size(); ++p) {
      for (std::size_t j = 0; j < k; ++j) out << m.coordinate[p * k + j] << ',';
      out << m.density[p] << '\n';
    }
  });
}

namespace {

// The cells c for which keep(c) holds, in their order.
template <class Keep>
HostCells select(const HostCells& cells, const Keep& keep) {
  HostCells out;
  out.n = cells.n;
  out.time = cells.time;
  out.cell_width = cells.cell_width;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (!keep(c)) continue;
    out.key.push_back(cells.key[c]);
    out.probability.push_back(cells.probability[c]);
    if (!cells.member.empty()) out.member.push_back(cells.member[c]);
    for (int d = 0; d < cells.n; ++d) {
      out.index.push_back(cells.index[c * cells.n + d]);
      out.position.push_back(cells.position[c * cells.n + d]);
    }
  }
  return out;
}

}  // namespace

HostCells above_threshold(const HostCells& cells, double threshold) {
  HostCells out = select(cells, [&](std::size_t c) { return cells.probability[c] >= threshold; });
  double total = 0;
  for (double p : out.probability) total += p;
  require(total > 0, "no cell holds probability at or above the threshold " + std::to_string(threshold));
  for (double& p : out.probability) p /= total;
  return out;
}

HostCells member_cells(const HostCells& cells, int member) {
  return select(cells, [&](std::size_t c) { return (cells.member.empty() ? 0 : cells.member[c]) == member; });
}

double bhattacharyya(const std::vector<double>& p, const std::vector<double>& q) {
  require(p.size() == q.size(), "bhattacharyya: the distributions have different sizes");
  double bc = 0;
  for (std::size_t i = 0; i < p.size(); ++i) bc += std::sqrt(std::max(p[i], 0.0) * std::max(q[i], 0.0));
  return bc;
}

std::vector<double> marginal_bhattacharyya(const HostCells& cells, const std::vector<double>& samples,
                                           const std::vector<double>& weights) {
  const int n = cells.n;
  require(cells.size() > 0, "marginal_bhattacharyya: the grid has no cell");
  require(samples.size() == weights.size() * static_cast<std::size_t>(n),
          "marginal_bhattacharyya: need n coordinates for every weight");
  std::vector<double> bc(n);
  for (int a = 0; a < n; ++a) {
    const double h = cells.cell_width[a], origin = cells.position[a] - static_cast<double>(cells.index[a]) * h;
    std::map<std::int64_t, std::array<double, 2>> bins;  // grid's, samples'
    double grid_total = 0, sample_total = 0;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      bins[cells.index[c * n + a]][0] += cells.probability[c];
      grid_total += cells.probability[c];
    }
    for (std::size_t k = 0; k < weights.size(); ++k) {
      bins[std::llround((samples[k * n + a] - origin) / h)][1] += weights[k];
      sample_total += weights[k];
    }
    require(grid_total > 0 && sample_total > 0, "marginal_bhattacharyya: no probability on the grid or the samples");
    for (const auto& [bin, pq] : bins) bc[a] += std::sqrt(std::max(pq[0], 0.0) / grid_total * (pq[1] / sample_total));
  }
  return bc;
}

double bhattacharyya_above_threshold(const HostCells& cells, const std::vector<double>& q, double threshold) {
  require(q.size() == cells.size(), "bhattacharyya: the distributions have different sizes");
  double bc = 0, p_total = 0, q_total = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!(cells.probability[i] >= threshold)) continue;
    bc += std::sqrt(cells.probability[i] * std::max(q[i], 0.0));
    p_total += cells.probability[i];
    q_total += std::max(q[i], 0.0);
  }
  require(p_total > 0 && q_total > 0, "bhattacharyya: no probability at or above the threshold");
  return bc / std::sqrt(p_total * q_total);
}

GridComparison compare(const HostCells& a, const HostCells& b) {
  std::unordered_map<std::uint64_t, double> other;
  other.reserve(b.size());
  for (std::size_t c = 0; c < b.size(); ++c) other[b.key[c]] = b.probability[c];
  GridComparison r;
  for (std::size_t c = 0; c < a.size(); ++c) {
    const auto it = other.find(a.key[c]);
    const double pb = it == other.end() ? 0.0 : it->second;
    r.one_norm += std::fabs(a.probability[c] - pb);
    r.bhattacharyya += std::sqrt(a.probability[c] * pb);
    if (it != other.end()) other.erase(it);
  }
  for (const auto& [key, pb] : other) r.one_norm += pb;
  return r;
}

}  // namespace pk::gbees
