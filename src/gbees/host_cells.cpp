#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/host_cells.hpp>

#include <Kokkos_Core.hpp>

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

// A marginal's bins on a dense array over the bounding box of its axes' indices.
struct Dense {
  std::size_t m;                // which of the marginals asked for
  int axis[2] = {0, 0};         // the second unused for a 1-D marginal
  std::int64_t lo[2] = {0, 0};  // the lowest index on each axis
  std::size_t span1 = 1;        // the second axis' index range
  std::vector<double> sum;
};

// body(k) for k < count, each on a host thread (passes over grids of hundreds of millions of
// cells, one per axis or per marginal, each in the cells' order: the same sums on any thread).
template <class Body>
void on_host_threads(std::size_t count, const Body& body) {
  Kokkos::parallel_for("pk::gbees::host_cells", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, count),
                       [&](const std::size_t k) { body(k); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

// In an ordered map, for cells spread too far for a dense array.
Bins sparse_bins(const HostCells& cells, const std::vector<int>& axes) {
  std::map<std::array<std::int64_t, 2>, std::pair<std::array<double, 2>, double>> bins;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::array<std::int64_t, 2> id{};
    std::array<double, 2> x{};
    for (std::size_t a = 0; a < axes.size(); ++a) {
      id[a] = cells.index[c * cells.n + axes[a]];
      x[a] = cells.centre(c, axes[a]);
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

// The lowest and highest index of the (non-empty) cells on each axis.
struct IndexRange {
  std::vector<std::int64_t> lo, hi;
};
IndexRange index_range(const HostCells& cells) {
  const int n = cells.n;
  IndexRange r{std::vector<std::int64_t>(cells.index.begin(), cells.index.begin() + n), {}};
  r.hi = r.lo;
  on_host_threads(n, [&](std::size_t d) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      r.lo[d] = std::min(r.lo[d], cells.index[c * n + d]);
      r.hi[d] = std::max(r.hi[d], cells.index[c * n + d]);
    }
  });
  return r;
}

// Whether `bins` bins over an index range fit a dense array for these cells (else a map).
bool dense_fits(double bins, const HostCells& cells) {
  return bins <= std::max(double(1 << 22), 2.0 * static_cast<double>(cells.size()));
}

Marginal as_marginal(const HostCells& cells, const std::vector<int>& axes, const Bins& bins) {
  double area = 1;
  for (int a : axes) area *= cells.cell_width[a];
  Marginal m;
  m.axes = axes;
  for (std::size_t b = 0; b < bins.probability.size(); ++b) {
    m.coordinate.insert(m.coordinate.end(), bins.centre[b].begin(), bins.centre[b].begin() + axes.size());
    m.density.push_back(bins.probability[b] / area);
  }
  return m;
}

}  // namespace

std::vector<Marginal> marginals(const HostCells& cells, const std::vector<std::vector<int>>& axes) {
  const int n = cells.n;
  for (const std::vector<int>& set : axes) {
    require(!set.empty() && set.size() <= 2, "marginal: one or two axes");
    for (int a : set) require(a >= 0 && a < n, "marginal: axis " + std::to_string(a + 1) + " does not exist");
  }
  std::vector<Marginal> out(axes.size());
  for (std::size_t m = 0; m < axes.size(); ++m) out[m].axes = axes[m];
  if (cells.size() == 0) return out;
  // The index range of every axis, then one pass over the cells for each dense marginal, each
  // bin summed in the cells' order (a snapshot of a 6-D grid of hundreds of millions of cells
  // has 9 marginals); a bin's centre follows from its index.
  const IndexRange range = index_range(cells);
  const std::vector<std::int64_t>& lo = range.lo;
  const std::vector<std::int64_t>& hi = range.hi;
  std::vector<Dense> dense;
  std::vector<Bins> bins(axes.size());
  for (std::size_t m = 0; m < axes.size(); ++m) {
    Dense d{m};
    double size = 1;
    for (std::size_t a = 0; a < axes[m].size(); ++a) {
      d.axis[a] = axes[m][a];
      d.lo[a] = lo[d.axis[a]];
      size *= static_cast<double>(hi[d.axis[a]] - lo[d.axis[a]] + 1);
    }
    if (axes[m].size() == 2) d.span1 = static_cast<std::size_t>(hi[d.axis[1]] - lo[d.axis[1]] + 1);
    if (!dense_fits(size, cells)) {
      bins[m] = sparse_bins(cells, axes[m]);
      continue;
    }
    d.sum.assign(static_cast<std::size_t>(size), std::nan(""));  // NaN: no cell in the bin
    dense.push_back(std::move(d));
  }
  on_host_threads(dense.size(), [&](std::size_t k) {
    Dense& d = dense[k];
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::int64_t* i = &cells.index[c * n];
      const std::size_t b = static_cast<std::size_t>(i[d.axis[0]] - d.lo[0]) * d.span1 +
                            (d.span1 > 1 ? static_cast<std::size_t>(i[d.axis[1]] - d.lo[1]) : 0);
      d.sum[b] = std::isnan(d.sum[b]) ? cells.probability[c] : d.sum[b] + cells.probability[c];
    }
  });
  for (const Dense& d : dense)
    for (std::size_t b = 0; b < d.sum.size(); ++b) {
      if (std::isnan(d.sum[b])) continue;
      const std::size_t at[2] = {b / d.span1, b % d.span1};
      std::array<double, 2> x{};
      for (std::size_t a = 0; a < axes[d.m].size(); ++a)
        x[a] = cells.coordinate(d.axis[a], d.lo[a] + static_cast<std::int64_t>(at[a]));
      bins[d.m].centre.push_back(x);
      bins[d.m].probability.push_back(d.sum[b]);
    }
  for (std::size_t m = 0; m < axes.size(); ++m) out[m] = as_marginal(cells, axes[m], bins[m]);
  return out;
}

Marginal marginal(const HostCells& cells, const std::vector<int>& axes) { return marginals(cells, {axes})[0]; }

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
  out.origin = cells.origin;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (!keep(c)) continue;
    out.key.push_back(cells.key[c]);
    out.probability.push_back(cells.probability[c]);
    if (!cells.member.empty()) out.member.push_back(cells.member[c]);
    for (int d = 0; d < cells.n; ++d) out.index.push_back(cells.index[c * cells.n + d]);
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
  double grid_total = 0, sample_total = 0;
  for (double q : cells.probability) grid_total += q;
  for (double w : weights) sample_total += w;
  require(grid_total > 0 && sample_total > 0, "marginal_bhattacharyya: no probability on the grid or the samples");
  // Per axis: the grid's and the samples' probability in bins over the grid's index range (a
  // sample outside it falls where the grid has none and adds only to the samples' total), on a
  // dense array where the range allows, else in a map; axes on host threads of their own.
  const IndexRange range = index_range(cells);
  const std::vector<std::int64_t>& lo = range.lo;
  const std::vector<std::int64_t>& hi = range.hi;
  std::vector<std::vector<std::array<double, 2>>> dense(n);  // grid's, samples'
  for (int a = 0; a < n; ++a)
    if (dense_fits(static_cast<double>(hi[a] - lo[a] + 1), cells))
      dense[a].assign(static_cast<std::size_t>(hi[a] - lo[a] + 1), {0.0, 0.0});
  std::vector<double> bc(n);
  const auto add_up = [&](std::size_t a, auto& bin) {
    const double h = cells.cell_width[a], origin = cells.origin[a];
    for (std::size_t c = 0; c < cells.size(); ++c) bin(cells.index[c * n + a])[0] += cells.probability[c];
    for (std::size_t k = 0; k < weights.size(); ++k) {
      const double at = std::round((samples[k * n + a] - origin) / h);
      if (at >= static_cast<double>(lo[a]) && at <= static_cast<double>(hi[a]))
        bin(static_cast<std::int64_t>(at))[1] += weights[k];
    }
  };
  const auto term = [&](const std::array<double, 2>& pq) {
    return std::sqrt(std::max(pq[0], 0.0) / grid_total * (pq[1] / sample_total));
  };
  on_host_threads(n, [&](std::size_t a) {
    if (dense[a].empty()) return;
    const auto bin = [&](std::int64_t i) -> std::array<double, 2>& { return dense[a][i - lo[a]]; };
    add_up(a, bin);
    for (const auto& pq : dense[a]) bc[a] += term(pq);
  });
  for (int a = 0; a < n; ++a) {
    if (!dense[a].empty()) continue;
    std::map<std::int64_t, std::array<double, 2>> sparse;
    const auto bin = [&](std::int64_t i) -> std::array<double, 2>& { return sparse[i]; };
    add_up(a, bin);
    for (const auto& entry : sparse) bc[a] += term(entry.second);
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
