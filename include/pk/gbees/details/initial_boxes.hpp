#pragma once
// Where the initial PDFs of pk::gbees::Solver lie on the grid: each PDF's box of cells around
// the cell nearest its mean, the part of it that may reach its cut (initial_cut) on this rank,
// and the slab borders that share the boxes out over the ranks.
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/details/ranks.hpp>
#include <pk/gbees/parameters.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pk::gbees::Details {

struct InitialBoxes {
  IndexArray half;                 // a box's cells either side of its centre, per axis
  RealArray inverse_std;           // 1 / the initial standard deviation, per axis
  std::int64_t box = 1;            // cells of one box
  std::vector<IndexArray> offset;  // each PDF's centre, in cells from the grid's origin
  std::vector<RealArray> shift;    // each PDF's mean less the grid's origin
  std::vector<double> cut;         // the least probability each PDF's box keeps
};

inline InitialBoxes initial_boxes(const Parameters& p, int n, int members) {
  InitialBoxes b;
  for (int d = 0; d < n; ++d) {
    b.half.v[d] = initial_half_width(p, d);
    b.box *= 2 * b.half.v[d] + 1;
    b.inverse_std.v[d] = 1.0 / p.initial_std[d];
  }
  b.offset.resize(members);
  b.shift.resize(members);
  for (int e = 0; e < members && !p.member_means.empty(); ++e)
    for (int d = 0; d < n; ++d) {
      b.shift[e].v[d] = p.member_means[e][d] - p.initial_mean[d];
      b.offset[e].v[d] = static_cast<std::int64_t>(std::round(b.shift[e].v[d] / p.cell_width[d]));
    }
  for (int e = 0; e < members; ++e)
    b.cut.push_back(initial_cut(p, std::vector<double>(b.shift[e].v, b.shift[e].v + n)));
  return b;
}

// The cells of PDF e's box that may reach its cut and lie on this rank's slab (with its ghost
// layers): low + [0, width) per axis, `cells` of them.
struct BoxPart {
  IndexArray low, width;
  std::int64_t cells = 1;
};

inline BoxPart box_part(const InitialBoxes& b, const Parameters& p, const Geometry& geometry, int e) {
  BoxPart part;
  for (int d = 0; d < geometry.n; ++d) {
    const AxisRange reach = initial_axis_range(p, d, b.shift[e].v[d], b.cut[e]);
    std::int64_t from = reach.first, to = reach.last;
    if (d == geometry.slab.axis) {
      from = std::max(from, geometry.slab.begin - Slab::ghost_layers - b.offset[e].v[d]);
      to = std::min(to, geometry.slab.end + Slab::ghost_layers - 1 - b.offset[e].v[d]);
    }
    part.low.v[d] = from;
    part.width.v[d] = std::max<std::int64_t>(0, to - from + 1);
    part.cells *= part.width.v[d];
  }
  return part;
}

// Slab borders along axis `a` that share the boxes' cells out evenly over `ranks`: each box
// has the same cells in each of its layers on that axis.
inline std::vector<std::int64_t> initial_borders(const InitialBoxes& b, int a, int ranks) {
  std::int64_t first = b.offset[0].v[a], last = first;
  for (const IndexArray& o : b.offset) {
    first = std::min(first, o.v[a]);
    last = std::max(last, o.v[a]);
  }
  first -= b.half.v[a];
  last += b.half.v[a];
  std::vector<double> cells(static_cast<std::size_t>(last - first + 1), 0.0);
  const double per_layer = static_cast<double>(b.box) / static_cast<double>(2 * b.half.v[a] + 1);
  for (const IndexArray& o : b.offset)
    for (std::int64_t i = o.v[a] - b.half.v[a]; i <= o.v[a] + b.half.v[a]; ++i) cells[i - first] += per_layer;
  return balanced_borders(cells, first, ranks);
}

// The axis along which the initial PDFs' boxes span the most cells (the first of equals).
inline int widest_initial_axis(const Parameters& p, int n) {
  int widest = 0;
  for (int d = 1; d < n; ++d)
    if (p.initial_std[d] / p.cell_width[d] > p.initial_std[widest] / p.cell_width[widest]) widest = d;
  return widest;
}

}  // namespace pk::gbees::Details
