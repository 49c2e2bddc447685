#pragma once
// What a distributed GBEES run needs from its ranks, without naming MPI (the MPI side is
// pk/gbees/distributed_solver.hpp): reductions, an exchange of cells, and where the slab
// borders go so that every rank owns about as many cells.
#include <pk/core/error.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pk::gbees::Details {

// A cell as it travels between ranks; the receiver writes its direction mask.
struct CellRecord {
  std::uint64_t key;
  double probability;
};

// Where a rank's time between its kernels went (seconds, waits for the others included).
struct CommunicationSeconds {
  double reductions = 0;  // the CFL limit, the totals, the stop (MPI_Allreduce)
  double staging = 0;     // cells to and from the host and between ranks (MPI_Alltoallv)
  double inserting = 0;   // cells that arrived, into the grid
};

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int size() const = 0;
  virtual int rank() const = 0;
  // Element-wise over the ranks, in place; every rank gets the result.
  virtual void sum(double* values, int count) const = 0;
  virtual void min(double* values, int count) const = 0;
  // Whether exchange() may be given device memory (an MPI that reads GPU buffers).
  virtual bool reads_device_memory() const = 0;
  // How many records each rank will send this one, given how many it sends each.
  virtual std::vector<int> exchange_counts(const std::vector<int>& sending) const = 0;
  // Sends sending[r] records from `out` (in rank order) to each rank r and receives
  // arriving[r] from each into `in` (in rank order).
  virtual void exchange(const CellRecord* out, const std::vector<int>& sending, CellRecord* in,
                        const std::vector<int>& arriving) const = 0;

  mutable CommunicationSeconds seconds;
};

// A layer index below and above every cell's: the open ends of the first and last slab.
inline constexpr std::int64_t below_every_layer = -(std::int64_t(1) << 62);
inline constexpr std::int64_t above_every_layer = std::int64_t(1) << 62;

// Slab borders for `ranks` ranks from the cells per layer (cells[k]: layer first + k): rank r
// owns layers [borders[r], borders[r + 1]), the first and last open-ended, each as near
// r / ranks of the cells as a layer border allows.
inline std::vector<std::int64_t> balanced_borders(const std::vector<double>& cells, std::int64_t first, int ranks) {
  require(ranks >= 1, "GBEES slabs: ", ranks, " ranks");
  double total = 0;
  for (double c : cells) total += c;
  std::vector<std::int64_t> borders(static_cast<std::size_t>(ranks) + 1, first);
  borders.front() = below_every_layer;
  borders.back() = above_every_layer;
  double below = 0;  // cells in layers before k
  std::size_t k = 0;
  for (int r = 1; r < ranks; ++r) {
    const double share = total * r / ranks;
    // The border nearest the share: before layer k or after it.
    while (k < cells.size() && below + cells[k] <= share) below += cells[k++];
    const bool after = k < cells.size() && (below + cells[k] - share) < (share - below);
    borders[r] = first + static_cast<std::int64_t>(k) + (after ? 1 : 0);
    borders[r] = std::max(borders[r], r > 1 ? borders[r - 1] : first);
  }
  return borders;
}

// The rank that owns layer i.
inline int owner_of(const std::vector<std::int64_t>& borders, std::int64_t i) {
  const auto above = std::upper_bound(borders.begin() + 1, borders.end() - 1, i);
  return static_cast<int>(above - borders.begin()) - 1;
}

}  // namespace pk::gbees::Details
