#pragma once
// A GBEES grid over several ranks: rank r owns the cells whose layer on one axis lies in
// its slab [borders[r], borders[r + 1]) and holds copies of the cells of the Slab::ghost_layers
// layers beyond either end (its ghosts). Each step every rank grows all the cells it holds
// and updates those it owns, with one global dt (the ranks' smallest CFL limit) and global
// totals (sums over the cells each owns); the inner ghost layer supplies the fluxes of the
// faces next to the slab, and exchange_ghosts then overwrites the ghosts with their owners'
// new values (new ghosts included). Two layers
// suffice: a cell's update reads the faces of its neighbours, whose corner-transport terms
// read theirs. Growth adds only cells a rank holds; a cell grown in a ghost layer is grown
// by its owner too, from the same exact copies. Pruning marks every cell, drops the
// ghosts, moves cells whose owner changed when the borders are rebalanced (the ranks' cells
// differ by more than rebalance_above), and fetches the ghosts anew.
#include <pk/core/spaces.hpp>
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
inline constexpr double rebalance_above = 0.01;

// Inserts a record's cell, or overwrites the copy there, with its probability, and notes
// its slot (the caller then writes its direction mask); a failed insert (map full) sets the
// grid's flag, as SparseGrid::Inserter does.
template <class Grid>
struct UpsertCells {
  typename Grid::Inserter grid;
  Kokkos::View<const CellRecord*, typename Grid::memory_space> records;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> slots;
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
    slots(i) = slot;
  }
};

// Public throughout: nvcc takes no device lambda in a private member function.
template <class ExecutionSpace>
class Distribution {
 public:
  using Grid = SparseGrid<ExecutionSpace>;
  using memory_space = typename ExecutionSpace::memory_space;

  Distribution(const ExecutionSpace& space, std::shared_ptr<const Ranks> ranks, int axis)
      : space_(space), ranks_(std::move(ranks)), axis_(axis) {}

  const Ranks& ranks() const { return *ranks_; }
  int axis() const { return axis_; }
  Slab slab(int rank) const { return slab(borders_, rank); }
  Slab slab(const std::vector<std::int64_t>& borders, int rank) const {
    return Slab{axis_, borders[rank], borders[rank + 1]};
  }

  // The slabs' borders (the first ones) and this rank's slab.
  void set_borders(std::vector<std::int64_t> borders, Geometry& g) {
    borders_ = std::move(borders);
    g.slab = slab(ranks_->rank());
  }

  // The pruning of a rank (after PruneMark): drops its ghosts and the cells pruned, moves
  // cells to their new owners when rebalancing, fetches the ghosts; returns the probability
  // pruned over all ranks. The cells that arrived and the ghosts enter the neighbour table.
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
    const Layers kept = layers(grid, codec, old);
    const std::vector<std::int64_t> next =
        imbalanced(kept) ? balanced_borders(kept.cells, kept.first, ranks_->size()) : borders_;
    const Slab mine = slab(next, ranks_->rank());
    // Cells kept whose owner changes go to it; the rank keeps the rest of what it owns.
    std::vector<int> counts(ranks_->size(), 0);
    int total = 0;
    for (int r = 0; r < ranks_->size(); ++r) {
      const Slab theirs = slab(next, r);
      if (r != ranks_->rank())
        total += counts[r] = pack(
            grid, total,
            KOKKOS_LAMBDA(const int c) { return keep(c) && old.owns(codec, key(c)) && theirs.owns(codec, key(c)); });
    }
    const int arriving = exchange(counts, total);
    Kokkos::parallel_for(
        "pk::gbees::distribution::keep_owned", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c) { keep(c) = keep(c) && old.owns(codec, key(c)) && mine.owns(codec, key(c)); });
    grid.compact();  // the kept cells keep their neighbour rows
    borders_ = next;
    g.slab = mine;
    const std::int32_t first_new = grid.count();
    upsert(grid, arriving);
    exchange_ghosts(grid, g, false);
    link_cells(grid, codec, first_new);
    return removed;
  }

  // Sends the cells this rank owns within Slab::ghost_layers of its borders to the ranks
  // that hold them as ghosts, and inserts or overwrites the ghosts it receives; `link`:
  // enters the new ghosts in the neighbour table (else the caller does).
  void exchange_ghosts(Grid& grid, const Geometry& g, bool link = true) {
    const Slab mine = g.slab;
    const auto codec = g.codec;
    const auto key = grid.key();
    std::vector<int> counts(ranks_->size(), 0);
    int total = 0;
    for (int r = 0; r < ranks_->size(); ++r) {
      const Slab theirs = slab(r);
      const bool reaches_mine =
          theirs.begin - Slab::ghost_layers < mine.end && mine.begin < theirs.end + Slab::ghost_layers;
      if (r != ranks_->rank() && reaches_mine)
        total += counts[r] = pack(
            grid, total,
            KOKKOS_LAMBDA(const int c) { return mine.owns(codec, key(c)) && theirs.holds(codec, key(c)); });
    }
    const std::int32_t before = grid.count();
    upsert(grid, exchange(counts, total));
    if (link) link_cells(grid, codec, before);
  }

  // The slots the last exchange wrote: their direction masks are the caller's to write.
  Kokkos::View<const std::int32_t*, memory_space> arrived() const {
    return Kokkos::subview(arrived_, std::make_pair(0, arrived_count_));
  }

  // Writes the records of the cells `pick` (a device functor of the slot) selects into the
  // outgoing buffer from `offset` on; returns how many.
  template <class Pick>
  int pack(const Grid& grid, int offset, const Pick& pick) {
    const int m = grid.count();
    int picked = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::distribution::count", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, int& sum) { sum += pick(c) ? 1 : 0; }, picked);
    room(outgoing_, offset + picked, "pk::gbees::distribution::outgoing", offset);
    const auto records = outgoing_;
    const auto key = grid.key();
    const auto probability = grid.probability();
    Kokkos::parallel_scan(
        "pk::gbees::distribution::pack", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, int& at, const bool final) {
          if (!pick(c)) return;
          if (final) records(offset + at) = CellRecord{key(c), probability(c)};
          ++at;
        });
    return picked;
  }

  // Sends counts[r] records of the outgoing buffer (in rank order, `total` in all) to each
  // rank r and receives the others' into the incoming buffer, staged through pinned host
  // memory unless MPI reads the space's memory; returns how many arrived.
  int exchange(const std::vector<int>& counts, int total) {
    Kokkos::Timer timer;
    const bool direct = runs_on_host<ExecutionSpace> || ranks_->reads_device_memory();
    if (!direct) {
      stage(outgoing_host_, total);
      Kokkos::deep_copy(space_, Kokkos::subview(outgoing_host_, std::make_pair(0, total)),
                        Kokkos::subview(outgoing_, std::make_pair(0, total)));
    }
    space_.fence();
    const std::vector<int> arriving = ranks_->exchange_counts(counts);
    int received = 0;
    for (int c : arriving) received += c;
    room(incoming_, received, "pk::gbees::distribution::incoming");
    if (direct) {
      space_.fence();  // the allocation
      ranks_->exchange(outgoing_.data(), counts, incoming_.data(), arriving);
    } else {
      stage(incoming_host_, received);
      ranks_->exchange(outgoing_host_.data(), counts, incoming_host_.data(), arriving);
      Kokkos::deep_copy(space_, Kokkos::subview(incoming_, std::make_pair(0, received)),
                        Kokkos::subview(incoming_host_, std::make_pair(0, received)));
    }
    ranks_->seconds.staging += timer.seconds();
    return received;
  }

  // Inserts the cells of the first `count` incoming records or overwrites the copies there,
  // growing the grid as needed; their slots go to arrived().
  void upsert(Grid& grid, int count) {
    Kokkos::Timer timer;
    arrived_count_ = count;
    if (count == 0) return;
    room(arrived_, count, "pk::gbees::distribution::arrived");
    const auto records = Kokkos::subview(incoming_, std::make_pair(0, count));
    grid.reserve(static_cast<std::size_t>(grid.count()) + static_cast<std::size_t>(count));
    grid.insert_pass([&](const typename Grid::Inserter& inserter) {
      Kokkos::parallel_for("pk::gbees::distribution::upsert", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, count),
                           UpsertCells<Grid>{inserter, records, arrived_});
    });
    ranks_->seconds.inserting += timer.seconds();
  }

  // Enters the cells in slots from `first` on in the neighbour table: their own rows
  // (find_neighbours), then theirs in the rows of the older cells beside them (link_to_older).
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
        "pk::gbees::distribution::link", added, KOKKOS_LAMBDA(const int c) { link_to_older(neighbour, n, c, first); });
  }

  // The cells per layer on the slab axis (cells[k]: layer first + k) that the ranks own by
  // `counted` and keep by the prune's mark, summed over the ranks; empty when there are none.
  struct Layers {
    std::int64_t first = 0;
    std::vector<double> cells;
  };
  Layers layers(const Grid& grid, const KeyCodec& codec, const Slab& counted) const {
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
    if (extremes[0] > -extremes[1]) return {};
    const auto first = static_cast<std::int64_t>(extremes[0]);
    const auto count = static_cast<std::int64_t>(-extremes[1]) - first + 1;
    require(count < (std::int64_t(1) << 26), "GBEES slabs: ", count, " layers on axis ", axis_);
    Kokkos::View<double*, memory_space> cells(Kokkos::view_alloc(space_, "pk::gbees::distribution::layer_cells"),
                                              count);
    Kokkos::parallel_for(
        "pk::gbees::distribution::histogram", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid.count()),
        KOKKOS_LAMBDA(const int c) {
          if (!counted.owns(codec, key(c)) || !keep(c)) return;
          Kokkos::atomic_add(&cells(codec.index(key(c), axis) - first), 1.0);
        });
    Layers out{first, std::vector<double>(static_cast<std::size_t>(count))};
    Kokkos::deep_copy(space_,
                      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          out.cells.data(), out.cells.size()),
                      cells);
    space_.fence();
    ranks_->sum(out.cells.data(), static_cast<int>(out.cells.size()));
    return out;
  }

  // Whether, under the present borders, some rank would own more than (1 + rebalance_above)
  // times the mean of these cells (none: no).
  bool imbalanced(const Layers& l) const {
    std::vector<double> per_rank(ranks_->size(), 0.0);
    double total = 0;
    for (std::size_t k = 0; k < l.cells.size(); ++k) {
      per_rank[owner_of(borders_, l.first + static_cast<std::int64_t>(k))] += l.cells[k];
      total += l.cells[k];
    }
    const double most = *std::max_element(per_rank.begin(), per_rank.end());
    return most > (1 + rebalance_above) * total / ranks_->size();
  }

  using Records = Kokkos::View<CellRecord*, memory_space>;
  using StagedRecords = Kokkos::View<CellRecord*, StagingSpace<ExecutionSpace>>;

  // Room for `count` entries and a margin, so that a step's exchange rarely allocates.
  static int margin(int count) { return count + count / 4 + 1024; }
  // A device buffer with room for `count` entries, its first `kept` kept when it grows.
  template <class View>
  void room(View& buffer, int count, const std::string& label, int kept = 0) const {
    if (static_cast<int>(buffer.extent(0)) >= count) return;
    View grown(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, label), margin(count));
    if (kept > 0)
      Kokkos::deep_copy(space_, Kokkos::subview(grown, std::make_pair(0, kept)),
                        Kokkos::subview(buffer, std::make_pair(0, kept)));
    buffer = grown;
  }
  void stage(StagedRecords& buffer, int count) const {
    if (static_cast<int>(buffer.extent(0)) < count)
      buffer = StagedRecords(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::gbees::distribution::staged"),
                             margin(count));
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
  // Exchange buffers, kept between steps: on the device, and staged in host memory.
  Records outgoing_, incoming_;
  StagedRecords outgoing_host_, incoming_host_;
  Kokkos::View<std::int32_t*, memory_space> arrived_;
  int arrived_count_ = 0;
};

}  // namespace pk::gbees::Details
