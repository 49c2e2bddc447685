#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/host_cells.hpp>

#include <cmath>
#include <map>
#include <unordered_map>

namespace pk::gbees {

Marginal marginal(const HostCells& cells, const std::vector<int>& axes) {
  require(!axes.empty() && axes.size() <= 2, "marginal: one or two axes");
  for (int a : axes) require(a >= 0 && a < cells.n, "marginal: axis " + std::to_string(a + 1) + " does not exist");
  std::map<std::vector<std::int64_t>, std::pair<std::vector<double>, double>> bins;
  double area = 1;
  for (int a : axes) area *= cells.cell_width[a];
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::vector<std::int64_t> id;
    std::vector<double> x;
    for (int a : axes) {
      id.push_back(cells.index[c * cells.n + a]);
      x.push_back(cells.position[c * cells.n + a]);
    }
    auto& bin = bins[id];
    bin.first = x;
    bin.second += cells.probability[c];
  }
  Marginal m;
  m.axes = axes;
  for (const auto& [id, bin] : bins) {
    m.coordinate.insert(m.coordinate.end(), bin.first.begin(), bin.first.end());
    m.density.push_back(bin.second / area);
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
