#pragma once
// A GBEES grid over several ranks: rank r owns the cells whose layer on one axis lies in
// its slab [borders[r], borders[r + 1]) and holds copies of the cells of the Slab::ghost_layers
// layers beyond either end (its ghosts). Each step every rank steps all the cells it holds,
// with one global dt (the ranks' smallest CFL limit) and global totals (sums over the cells
// each owns); its ghosts, which lack neighbours at the far side, come out wrong, and
// exchange_ghosts then overwrites them with their owners' (new ghosts included). Two layers
// suffice: a cell's update reads the faces of its neighbours, whose corner-transport terms
// read theirs. Growth adds only cells a rank holds; a cell grown in a ghost layer is grown
// by its owner too, from the same exact copies. Pruning marks every cell, drops the
// ghosts, moves cells whose owner changed when the borders are rebalanced (the ranks' cells
// differ by more than rebalance_above), and fetches the ghosts anew.
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/details/ranks.hpp>
#include <pk/gbees/details/sparse_grid.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pk::gbees::Details {

// New borders when the most cells a rank owns exceed the mean by this fraction.
inline constexpr double rebalance_above = 0.05;

// Cell c's record (CellRecord) into records(at).
template <class Grid>
struct RecordCell {
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  KOKKOS_INLINE_FUNCTION CellRecord operator()(const int c) const {
    return CellRecord{key(c), probability(c), direction(c), 0};
  }
};

// Inserts a record's cell, or overwrites the copy there, with its probability and direction
// mask; a failed insert (map full) sets the grid's flag, as SparseGrid::Inserter does.
template <class Grid>
struct UpsertCells {
  typename Grid::Inserter grid;
  Kokkos::View<const CellRecord*, typename Grid::memory_space> records;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const CellRecord r = records(i);
    const auto result = grid.map.insert(r.key, -1);
    std::int32_t slot;
    if (result.success()) {
      slot = Kokkos::atomic_fetch_add(&grid.count(), 1);
      grid.map.value_at(result.index()) = slot;
      grid.key(slot) = r.key;
    } else if (result.existing()) {
      slot = grid.map.value_at(result.index());
    } else {
      grid.failed() = 1;
      return;
    }
    grid.probability(slot) = r.probability;
    grid.direction(slot) = r.direction;
  }
};

template <class ExecutionSpace>
class Distribution {
 public:
  using Grid = SparseGrid<ExecutionSpace>;
  using memory_space = typename ExecutionSpace::memory_space;

  Distribution(const ExecutionSpace& space, std::shared_ptr<const Ranks> ranks, int axis)
      : space_(space), ranks_(std::move(ranks)), axis_(axis) {}

  const Ranks& ranks() const { return *ranks_; }
  int axis() const { return axis_; }
  const std::vector<std::int64_t>& borders() const { return borders_; }
  Slab slab(int rank) const { return Slab{axis_, borders_[rank], borders_[rank + 1]}; }

  // The slabs' borders (the first ones) and this rank's slab.
  void set_borders(std::vector<std::int64_t> borders, Geometry& g) {
    borders_ = std::move(borders);
    g.slab = slab(ranks_->rank());
  }

  // The pruning of a rank (after PruneMark): drops its ghosts and the cells pruned, moves
  // cells to their new owners when rebalancing, fetches the ghosts; returns the probability
  // pruned over all ranks. The neighbour table is rebuilt.
  double prune(Grid& grid, Geometry& g) {
    const Slab old = g.slab;
    const auto codec = g.codec;
    const auto key = grid.key();
    const auto keep = grid.keep();
    const auto probability = grid.probability();
    double removed = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::distribution::pruned", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c, double& sum) {
          if (!keep(c) && old.owns(codec, key(c))) sum += probability(c);
        },
        removed);
    ranks_->sum(&removed, 1);
    std::vector<std::int64_t> next = balanced(grid, codec, old);
    if (!imbalanced()) next = borders_;
    const Slab mine{axis_, next[ranks_->rank()], next[ranks_->rank() + 1]};
    // Cells kept whose owner changes go to it; the rank keeps the rest of what it owns.
    std::vector<std::vector<CellRecord>> sends(ranks_->size());
    for (const CellRecord& r : pack(
             grid,
             KOKKOS_LAMBDA(const int c) { return keep(c) && old.owns(codec, key(c)) && !mine.owns(codec, key(c)); }))
      sends[owner_of(next, codec.index(r.key, axis_))].push_back(r);
    const std::vector<CellRecord> arriving = ranks_->exchange(sends);
    Kokkos::parallel_for(
        "pk::gbees::distribution::keep_owned", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c) { keep(c) = keep(c) && old.owns(codec, key(c)) && mine.owns(codec, key(c)); });
    grid.compact();
    borders_ = next;
    g.slab = mine;
    upsert(grid, arriving);
    exchange_ghosts(grid, g, false);
    grid.rebuild_neighbours();
    return removed;
  }

  // Sends the cells this rank owns within Slab::ghost_layers of its borders to the ranks
  // that hold them as ghosts, and inserts or overwrites the ghosts it receives; `link`:
  // enters the new ghosts in the neighbour table (else the caller rebuilds it).
  void exchange_ghosts(Grid& grid, const Geometry& g, bool link = true) {
    const Slab mine = g.slab;
    const auto codec = g.codec;
    const auto key = grid.key();
    std::vector<std::vector<CellRecord>> sends(ranks_->size());
    for (int s = 0; s < ranks_->size(); ++s) {
      const Slab theirs = slab(s);
      const bool reaches_mine =
          theirs.begin - Slab::ghost_layers < mine.end && mine.begin < theirs.end + Slab::ghost_layers;
      if (s == ranks_->rank() || !reaches_mine) continue;
      sends[s] = pack(
          grid, KOKKOS_LAMBDA(const int c) { return mine.owns(codec, key(c)) && theirs.holds(codec, key(c)); });
    }
    const std::int32_t before = grid.count();
    upsert(grid, ranks_->exchange(sends));
    if (link) link_cells(grid, codec, before);
  }

  // Cells `pick` (a device functor of the slot) selects, as records on the host.
  template <class Pick>
  std::vector<CellRecord> pack(const Grid& grid, const Pick& pick) const {
    const int m = grid.count();
    int picked = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::distribution::count", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, int& sum) { sum += pick(c) ? 1 : 0; }, picked);
    const auto records = buffer(outgoing_, picked);
    const RecordCell<Grid> record{grid.key(), grid.probability(), grid.direction()};
    Kokkos::parallel_scan(
        "pk::gbees::distribution::pack", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, int& offset, const bool final) {
          if (!pick(c)) return;
          if (final) records(offset) = record(c);
          ++offset;
        });
    std::vector<CellRecord> out(static_cast<std::size_t>(picked));
    Kokkos::deep_copy(space_, HostRecords(out.data(), out.size()), records);
    space_.fence();
    return out;
  }

  // Inserts the records' cells or overwrites the copies there, growing the grid as needed.
  void upsert(Grid& grid, const std::vector<CellRecord>& records) {
    const auto count = static_cast<int>(records.size());
    if (count == 0) return;
    const auto on_device = buffer(incoming_, count);
    Kokkos::deep_copy(space_, on_device, ArrivedRecords(records.data(), records.size()));
    grid.reserve(static_cast<std::size_t>(grid.count()) + records.size());
    grid.insert_pass([&](const typename Grid::Inserter& inserter) {
      Kokkos::parallel_for("pk::gbees::distribution::upsert", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, count),
                           UpsertCells<Grid>{inserter, on_device});
    });
  }

  // Enters the cells in slots from `first` on in the neighbour table: their own rows, and
  // theirs in the rows of the older cells beside them.
  void link_cells(const Grid& grid, const KeyCodec& codec, std::int32_t first) const {
    const std::int32_t last = grid.count();
    if (last == first) return;
    const auto map = grid.map();
    const auto key = grid.key();
    const auto neighbour = grid.neighbour();
    const int n = codec.n;
    const Kokkos::RangePolicy<ExecutionSpace> added(space_, first, last);
    Kokkos::parallel_for(
        "pk::gbees::distribution::find_neighbours", added,
        KOKKOS_LAMBDA(const int c) { find_neighbours(map, codec, neighbour, c, key(c)); });
    Kokkos::parallel_for(
        "pk::gbees::distribution::link", added, KOKKOS_LAMBDA(const int c) {
          for (int s = 0; s < 2 * n; ++s) {
            const std::int32_t other = neighbour(c, s);
            if (other >= 0 && other < first) neighbour(other, s < n ? s + n : s - n) = c;
          }
        });
  }

  // Balanced borders for the cells each rank owns by `counted` and keeps by the prune's mark.
  std::vector<std::int64_t> balanced(const Grid& grid, const KeyCodec& codec, const Slab& counted) {
    const auto key = grid.key();
    const auto keep = grid.keep();
    const int axis = axis_;
    Kokkos::MinMaxScalar<std::int64_t> range;
    Kokkos::parallel_reduce(
        "pk::gbees::distribution::layers", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c, Kokkos::MinMaxScalar<std::int64_t>& r) {
          if (!counted.owns(codec, key(c)) || !keep(c)) return;
          const std::int64_t i = codec.index(key(c), axis);
          if (i < r.min_val) r.min_val = i;
          if (i > r.max_val) r.max_val = i;
        },
        Kokkos::MinMax<std::int64_t>(range));
    double extremes[2] = {static_cast<double>(range.min_val), -static_cast<double>(range.max_val)};
    ranks_->min(extremes, 2);
    if (extremes[0] > -extremes[1]) return borders_;  // no cells
    const auto first = static_cast<std::int64_t>(extremes[0]);
    const auto layers = static_cast<std::int64_t>(-extremes[1]) - first + 1;
    require(layers < (std::int64_t(1) << 26), "GBEES slabs: ", layers, " layers on axis ", axis_);
    Kokkos::View<double*, memory_space> cells(Kokkos::view_alloc(space_, "pk::gbees::distribution::layer_cells"),
                                              layers);
    Kokkos::parallel_for(
        "pk::gbees::distribution::histogram", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c) {
          if (!counted.owns(codec, key(c)) || !keep(c)) return;
          Kokkos::atomic_add(&cells(codec.index(key(c), axis) - first), 1.0);
        });
    std::vector<double> host(static_cast<std::size_t>(layers));
    Kokkos::deep_copy(
        space_,
        Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), host.size()),
        cells);
    space_.fence();
    ranks_->sum(host.data(), static_cast<int>(host.size()));
    layer_cells_ = host;
    first_layer_ = first;
    return balanced_borders(host, first, ranks_->size());
  }

  // Whether, by the last histogram, some rank owns more than (1 + rebalance_above) times
  // the mean.
  bool imbalanced() const {
    std::vector<double> per_rank(ranks_->size(), 0.0);
    double total = 0;
    for (std::size_t k = 0; k < layer_cells_.size(); ++k) {
      per_rank[owner_of(borders_, first_layer_ + static_cast<std::int64_t>(k))] += layer_cells_[k];
      total += layer_cells_[k];
    }
    const double most = *std::max_element(per_rank.begin(), per_rank.end());
    return most > (1 + rebalance_above) * total / ranks_->size();
  }

  using Records = Kokkos::View<CellRecord*, memory_space>;
  using HostRecords = Kokkos::View<CellRecord*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ArrivedRecords = Kokkos::View<const CellRecord*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  // The first `count` records of `kept`, which grows (by a margin, so that a step's
  // exchange rarely allocates) when it holds fewer.
  Records buffer(Records& kept, int count) const {
    if (static_cast<int>(kept.extent(0)) < count)
      kept = Records(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::gbees::distribution::records"),
                     count + count / 4 + 1024);
    return Kokkos::subview(kept, std::make_pair(0, count));
  }

  // The cells this rank owns.
  std::int64_t count_owned(const Grid& grid, const Geometry& g) const {
    const Slab mine = g.slab;
    const auto codec = g.codec;
    const auto key = grid.key();
    std::int64_t owned = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::distribution::owned", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c, std::int64_t& sum) { sum += mine.owns(codec, key(c)) ? 1 : 0; }, owned);
    return owned;
  }

 private:
  ExecutionSpace space_;
  std::shared_ptr<const Ranks> ranks_;
  int axis_;
  std::vector<std::int64_t> borders_;
  mutable Records outgoing_, incoming_;  // exchange buffers, kept between steps
  std::vector<double> layer_cells_;      // of the last histogram (balanced)
  std::int64_t first_layer_ = 0;
};

}  // namespace pk::gbees::Details
