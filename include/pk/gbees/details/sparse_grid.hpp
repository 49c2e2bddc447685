#pragma once
// The sparse dynamic grid of GBEES (sec. 3.1, 4.1): cells keyed by their packed n-D integer
// index in a Kokkos::UnorderedMap (key -> slot), cell data in structure-of-arrays views.
//
// Slots are dense: cells occupy slots 0 .. count-1. Growth appends (an atomic counter hands
// out the next slot to the thread whose insert succeeded); pruning compacts the survivors
// to the front (on host spaces in the Z-order of their keys: cells near each other in space in
// nearby slots, so that a thread's range of slots holds a compact block), moves the neighbour
// table with them and rebuilds the map, so the slots of pruned cells are handed out again by the
// next growth. The cell arrays are always at least as long as the map's capacity, so a
// successful insert always has a slot; a failed insert (map full) sets a flag on the device,
// and the host grows map and arrays and repeats the insertion pass - nothing is dropped.
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/core/memory.hpp>
#include <pk/core/sort.hpp>
#include <pk/core/spaces.hpp>
#include <pk/core/tuning.hpp>
#include <pk/gbees/details/key.hpp>
#include <pk/gbees/grid_memory.hpp>
#include <pk/gbees/models.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_UnorderedMap.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pk::gbees {

namespace Details {

// The slot of the cell one step from the cell with key `key` along axis j (delta -1 or 1): -1
// where there is none (or the step leaves the key range).
template <class Map>
KOKKOS_INLINE_FUNCTION std::int32_t find_neighbour(const Map& map, const KeyCodec& codec, const std::uint64_t key,
                                                   const int j, const int delta) {
  std::uint64_t other;
  if (!codec.shift(key, j, delta, other)) return -1;
  const auto index = map.find(other);
  return map.valid_at(index) ? map.value_at(index) : -1;
}

// Row c of the neighbour table for the cell with key `key`: neighbour(c, j) and
// neighbour(c, n + j) get the slots of the cells one step back and forward on axis j, -1
// where there is none (or the step leaves the key range).
template <class Map, class NeighbourView>
KOKKOS_INLINE_FUNCTION void find_neighbours(const Map& map, const KeyCodec& codec, const NeighbourView& neighbour,
                                            const int c, const std::uint64_t key) {
  const int n = codec.n;
  for (int s = 0; s < 2 * n; ++s) neighbour(c, s) = find_neighbour(map, codec, key, s < n ? s : s - n, s < n ? -1 : 1);
}

// Enters cell c, which already has its own row, in the rows of its neighbours in slots below
// `first` (older cells): the slot at each position is unique, so no two threads write one
// entry; cells from `first` on find each other through their own rows.
template <class NeighbourView>
KOKKOS_INLINE_FUNCTION void link_to_older(const NeighbourView& neighbour, const int n, const int c,
                                          const std::int32_t first) {
  for (int s = 0; s < 2 * n; ++s) {
    const std::int32_t other = neighbour(c, s);
    if (other >= 0 && other < first) neighbour(other, s < n ? s + n : s - n) = c;
  }
}

template <class ExecutionSpace>
class SparseGrid {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using device_type = Kokkos::Device<ExecutionSpace, memory_space>;
  using Map = Kokkos::UnorderedMap<std::uint64_t, std::int32_t, device_type>;
  // The space's own layout: on a GPU (LayoutLeft) a warp over consecutive cells reads
  // flux(cell, j) and neighbour(cell, j) coalesced; on host cores (LayoutRight) a thread's
  // cell has its row in one cache line, where one array per axis would be 2n + n streams.
  using FluxView = Kokkos::View<double**, typename ExecutionSpace::array_layout, memory_space>;
  using NeighbourView = Kokkos::View<std::int32_t**, typename ExecutionSpace::array_layout, memory_space>;

  // Inserts one key from device code; the winning thread claims the next slot. A new cell
  // has probability 0 and no direction mask (it grows only once normalised).
  struct Inserter {
    Map map;
    Kokkos::View<std::uint64_t*, memory_space> key;
    Kokkos::View<double*, memory_space> probability;
    Kokkos::View<std::int32_t*, memory_space> direction;
    Kokkos::View<std::int32_t, memory_space> count;
    Kokkos::View<int, memory_space> failed;
    KOKKOS_INLINE_FUNCTION void operator()(std::uint64_t k) const {
      const auto result = map.insert(k, -1);
      if (result.success()) {
        const std::int32_t slot = Kokkos::atomic_fetch_add(&count(), 1);
        map.value_at(result.index()) = slot;
        key(slot) = k;
        probability(slot) = 0;
        direction(slot) = 0;
      } else if (result.failed()) {
        failed() = 1;
      }
    }
  };

  // key(s) -> s into the map, for a rebuild (insert_slots). A public functor: nvcc takes
  // neither a device lambda in a private member function nor a private kernel type.
  struct InsertSlot {
    Map map;
    Kokkos::View<std::uint64_t*, memory_space> key;
    Kokkos::View<int, memory_space> failures;
    KOKKOS_INLINE_FUNCTION void operator()(const int s) const {
      if (!map.insert(key(s), s).success()) Kokkos::atomic_add(&failures(), 1);
    }
  };

  // member_bits: keys that also number the PDFs of an ensemble (KeyCodec).
  SparseGrid(const ExecutionSpace& space, int dimension, std::size_t capacity, std::size_t max_cells = 0,
             int member_bits = 0)
      : space_(space),
        n_(dimension),
        codec_(dimension, member_bits),
        max_cells_(max_cells),
        z_order_(Tuning<ExecutionSpace>::lockstep_threads == 1),
        map_(new_map(capacity)),
        device_count_(Kokkos::view_alloc(space, "pk::gbees::grid::count")),
        insert_failed_(Kokkos::view_alloc(space, "pk::gbees::grid::insert_failed")) {
    require(dimension >= 2 && dimension <= max_dimension,
            "sparse grid: dimension " + std::to_string(dimension) + " not in 2.." + std::to_string(max_dimension));
    allocate_cells(map_.capacity());
  }

  int dimension() const { return n_; }
  const KeyCodec& codec() const { return codec_; }
  std::int32_t count() const { return count_; }
  std::size_t capacity() const { return key_.extent(0); }
  std::size_t map_capacity() const { return map_.capacity(); }
  // Whether compact() puts the kept cells in Z-order. By default where threads do not run in
  // lockstep: each host thread works through its own range of slots, and in Z-order that range
  // is a block of space whose neighbours' rows its cache holds; threads in lockstep read
  // neighbouring cells together in any order, and would pay the sort for nothing (docs/gbees.md).
  bool z_order() const { return z_order_; }
  void set_z_order(bool on) {
    z_order_ = on;
    if (on && sort_scratch_.extent(0) < key_.extent(0)) allocate_sort_scratch(key_.extent(0));
  }
  const Map& map() const { return map_; }
  Kokkos::View<std::uint64_t*, memory_space> key() const { return key_; }
  Kokkos::View<double*, memory_space> probability() const { return probability_; }
  FluxView flux() const { return flux_; }
  NeighbourView neighbour() const { return neighbour_; }
  // Per cell: 1 to keep it at the next compaction (pruning's mark), 0 to remove it.
  Kokkos::View<std::int32_t*, memory_space> keep() const { return keep_; }
  // Per cell: bit j set when f_j > 0 on its forward face, bit 8 + j when f_j < 0, bit 16
  // when its probability is >= p* (written at normalisation, read by growth and pruning).
  Kokkos::View<std::int32_t*, memory_space> direction() const { return direction_; }
  Inserter inserter() const {
    rebuilt_ = false;
    return Inserter{map_, key_, probability_, direction_, device_count_, insert_failed_};
  }
  // The cell count as kernels see it, and 1 once an insert found no room (Inserter).
  Kokkos::View<const std::int32_t, memory_space> device_count() const { return device_count_; }
  Kokkos::View<const int, memory_space> insert_failed() const { return insert_failed_; }
  std::size_t map_rehashes() const { return rehashes_; }

  // Where the map stands since the last rehash_from_slots (what a checkpoint can rebuild):
  // whether no insert ran since, and the capacities of the map and the arrays it left.
  struct Rebuilt {
    bool current = false;
    std::size_t map_capacity = 0, capacity = 0;
  };
  Rebuilt rebuilt() const { return {rebuilt_, rebuilt_map_capacity_, rebuilt_capacity_}; }

  // A checkpoint's grid (checkpoint.hpp): the cells on the host, arrays of `rebuilt.capacity`
  // slots and a map of `rebuilt.map_capacity` filled as rehash_from_slots fills it, so that
  // inserts find it as they found the checkpointed one; `rehashes` as it was.
  void restore(const Rebuilt& rebuilt, const std::vector<std::uint64_t>& keys, const std::vector<double>& probabilities,
               const std::vector<std::int32_t>& directions, std::size_t rehashes) {
    const auto cells = static_cast<std::int32_t>(keys.size());
    require(probabilities.size() == keys.size() && directions.size() == keys.size() &&
                keys.size() <= rebuilt.capacity && keys.size() <= rebuilt.map_capacity,
            "sparse grid: a checkpoint's cells do not fit its capacities");
    key_ = Kokkos::View<std::uint64_t*, memory_space>();
    allocate_cells(rebuilt.capacity);
    using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
    const auto first = std::make_pair(0, cells);
    Kokkos::deep_copy(space_, Kokkos::subview(key_, first),
                      Kokkos::View<const std::uint64_t*, Kokkos::HostSpace, Unmanaged>(keys.data(), keys.size()));
    Kokkos::deep_copy(space_, Kokkos::subview(probability_, first),
                      Kokkos::View<const double*, Kokkos::HostSpace, Unmanaged>(probabilities.data(), keys.size()));
    Kokkos::deep_copy(space_, Kokkos::subview(direction_, first),
                      Kokkos::View<const std::int32_t*, Kokkos::HostSpace, Unmanaged>(directions.data(), keys.size()));
    fill_map(rebuilt.map_capacity * 6 / 7, cells);  // as rehash_from_slots asks for it
    require(map_.capacity() == rebuilt.map_capacity, "sparse grid: this Kokkos makes no map of ", rebuilt.map_capacity,
            " entries, which the checkpoint's run had");
    rehashes_ = rehashes;
  }

  // The sort's scratch as allocated: only a grid in Z-order holds one.
  double allocated_bytes() const {
    const MemoryBreakdown b = bytes_per_slot(n_);
    return (b.total() - b.hash_map - b.sort_scratch) * static_cast<double>(capacity()) +
           b.hash_map * static_cast<double>(map_.capacity()) +
           static_cast<double>(sizeof(std::uint64_t) * sort_scratch_.extent(0));
  }

  // Makes room for `cells` cells at a load factor <= 0.9 (map and arrays); keeps contents.
  void reserve(std::size_t cells) {
    // Load <= 0.9 and 1.3x headroom after a rehash keep the slots per cell (and so the bytes
    // per cell) low; UnorderedMap chains collisions, so a high load costs little.
    if (static_cast<double>(cells) <= 0.9 * static_cast<double>(map_.capacity())) return;
    if (max_cells_ > 0 && cells > max_cells_)
      throw Error("sparse grid: the run needs " + std::to_string(cells) + " cells, more than the limit --max-cells " +
                  std::to_string(max_cells_) + " (raise it, or use a larger threshold or cell width)");
    const std::size_t target = static_cast<std::size_t>(1.3 * static_cast<double>(cells)) + 1024;
    try {
      map_ = new_map(target);
      ++rehashes_;
      allocate_cells(map_.capacity());
    } catch (const std::exception& e) {
      if (!is_allocation_failure(e)) throw;
      throw OutOfMemory("sparse grid: cannot allocate room for " + std::to_string(target) + " cells (" +
                        std::to_string(allocated_bytes() / 1e9) + " GB held now): " + e.what());
    }
    insert_slots(count_);
    rebuild_neighbours();  // the new table's rows: a step looks up only its new cells' rows
  }

  // Runs pass(inserter) - a kernel that inserts keys - until no insert failed for want of
  // room, growing the map and the arrays between attempts. Returns the new cell count.
  template <class Pass>
  std::int32_t insert_pass(Pass&& pass) {
    for (int attempt = 0;; ++attempt) {
      pass(inserter());
      if (!recover_failed_insert(attempt)) return count_;
    }
  }

  // How many slots a kernel over the live cells launches over. A GPU launches over the whole
  // capacity and its kernels check the count on the device, so the host need not wait for
  // it; a host space runs its kernels in turn, so it reads the count (at no cost) and
  // launches over the cells alone, which keeps its static schedule balanced.
  int launch_extent() const {
    if constexpr (pk::runs_on_host<ExecutionSpace>) {
      std::int32_t cells = 0;
      Kokkos::deep_copy(space_, cells, device_count_);
      space_.fence();
      return cells;
    } else {
      return static_cast<int>(capacity());
    }
  }

  // Reads the cell count the kernels left on the device (waits for the device). Returns
  // whether an insert failed since the last call; if one did, the map and the arrays have
  // grown and the flag is cleared, so the inserting kernels can run again (cells that made
  // it in are found, the rest are inserted). `attempt` counts the repeats of one pass.
  bool recover_failed_insert(int attempt = 0) {
    int failed = 0;
    Kokkos::deep_copy(space_, failed, insert_failed_);
    Kokkos::deep_copy(space_, count_, device_count_);
    space_.fence();
    if (!failed) return false;
    if (attempt >= 40) throw InternalError("sparse grid: inserts keep failing after growing the map");
    // No room: the map is full, or (on a GPU, in a map filled from empty, where Kokkos
    // bounds the search for a free slot) a thread gave up looking. Either way grow to 1.3x
    // the capacity (not 2x: bytes per cell stay low), which also clears the map's flag.
    reserve(std::max(static_cast<std::size_t>(count_) + 1, static_cast<std::size_t>(map_.capacity())));
    Kokkos::deep_copy(space_, insert_failed_, 0);
    return true;
  }

  // Sets the cell count after a bulk fill (slots 0..cells-1 written by the caller).
  void set_count(std::int32_t cells) {
    count_ = cells;
    Kokkos::deep_copy(space_, device_count_, cells);
    space_.fence();
  }

  // The whole neighbour table (find_neighbours): two lookups per axis per cell.
  void rebuild_neighbours() {
    auto map = map_;
    auto key = key_;
    auto neighbour = neighbour_;
    const auto codec = codec_;
    Kokkos::parallel_for(
        "pk::gbees::grid::neighbours", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, count_),
        KOKKOS_LAMBDA(const int c) { find_neighbours(map, codec, neighbour, c, key(c)); });
  }

  // Keeps the cells whose keep(c) is 1, moves them to slots 0..kept-1 in their order (with
  // z_order(), in the Z-order of their keys), carries the neighbour table along and rebuilds the
  // map. Returns the probability of the removed cells. The direction masks are left stale: the
  // caller renormalises, which rewrites them.
  double compact() {
    const std::int32_t m = count_;
    auto keep = keep_;
    auto key = key_;
    auto probability = probability_;
    const auto codec = codec_;
    const bool in_z_order = z_order_;
    // In Z-order, each kept cell's sort code: its member, the low bits of its indices
    // interleaved (KeyCodec::z_order, as many as fit), and its slot, so that the sorted codes
    // name the cells to move without a lookup.
    int slot_bits = 1;
    while (slot_bits < 31 && (std::int32_t(1) << slot_bits) < m) ++slot_bits;
    const int z_bits = std::min(codec.bits, (64 - codec.member_bits - slot_bits) / codec.n);
    const std::uint64_t slot_mask = (std::uint64_t(1) << slot_bits) - 1;
    // A kept cell cannot move in place (its new slot may hold a cell not yet read), so the
    // kept cells go to scratch and back: the new slots to the direction masks, the
    // probabilities to column 0 of the fluxes (rebuilt before their next use), the keys to
    // their own array (where the sort codes were).
    auto new_slot = direction_;
    auto moved_probability = Kokkos::subview(flux_, Kokkos::ALL, 0);
    auto moved_key = moved_key_;
    double removed = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::prune::removed_probability", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, double& sum) {
          if (!keep(c)) sum += probability(c);
        },
        removed);
    std::int32_t kept = 0;
    Kokkos::parallel_scan(
        "pk::gbees::prune::scan", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
        KOKKOS_LAMBDA(const int c, std::int32_t& offset, const bool final) {
          if (final) {
            new_slot(c) = keep(c) && !in_z_order ? offset : -1;
            if (keep(c) && in_z_order)
              moved_key(offset) = codec.member_part(key(c)) | codec.z_order(key(c), z_bits) << slot_bits |
                                  static_cast<std::uint64_t>(c);
          }
          offset += keep(c);
        },
        kept);
    if (in_z_order) order_codes(kept, slot_mask);
    Kokkos::parallel_for(
        "pk::gbees::prune::gather", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m), KOKKOS_LAMBDA(const int c) {
          const std::int32_t s = new_slot(c);
          if (s >= 0) {
            moved_key(s) = key(c);
            if (!in_z_order) moved_probability(s) = probability(c);
          }
        });
    Kokkos::parallel_for(
        "pk::gbees::prune::copy_back", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, kept),
        KOKKOS_LAMBDA(const int s) {
          key(s) = moved_key(s);
          probability(s) = moved_probability(s);
        });
    move_neighbours(m, kept);
    space_.fence();
    if (rehash_from_slots(kept)) rebuild_neighbours();  // the arrays grew with the map: a new table
    return removed;
  }

  // compact()'s Z-order: the kept cells' sort codes in moved_key_[0, kept) (each ending in the
  // cell's slot, slot_mask its bits) to their new slots and their probabilities moved there. The
  // cells kept by the last compaction are in order already (their new slots follow it): only the
  // codes from the first out of order on (mostly the cells grown since) are sorted, then merged
  // with the ordered ones, each code's new slot its rank in the two runs. (Public: nvcc takes no
  // device lambda in a private member function.)
  void order_codes(std::int32_t kept, std::uint64_t slot_mask) {
    auto moved_key = moved_key_;
    auto new_slot = direction_;
    auto moved_probability = Kokkos::subview(flux_, Kokkos::ALL, 0);
    auto probability = probability_;
    std::int32_t ordered = kept;
    Kokkos::parallel_reduce(
        "pk::gbees::prune::ordered", Kokkos::RangePolicy<ExecutionSpace>(space_, 1, std::max(kept, 1)),
        KOKKOS_LAMBDA(const int s, std::int32_t& first) {
          if (moved_key(s - 1) > moved_key(s) && s < first) first = s;
        },
        Kokkos::Min<std::int32_t>(ordered));
    if (ordered > kept) ordered = kept;
    pk::merge_sort(space_, Kokkos::subview(moved_key, std::make_pair(ordered, kept)), sort_scratch_);
    Kokkos::parallel_for(
        "pk::gbees::prune::merge", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, kept), KOKKOS_LAMBDA(const int s) {
          const std::uint64_t code = moved_key(s);
          // the codes of the other run below this one (codes are distinct: they hold the slot)
          const int below = s < ordered ? pk::Details::place_in(moved_key, ordered, kept, code, false) - ordered
                                        : pk::Details::place_in(moved_key, 0, ordered, code, false);
          const auto c = static_cast<std::int32_t>(code & slot_mask);
          const std::int32_t slot = (s < ordered ? s : s - ordered) + below;
          new_slot(c) = slot;
          moved_probability(slot) = probability(c);
        });
  }

  // A new map of key(s) -> s for s < cells (after a compaction or a bulk fill). Returns
  // whether the cell arrays were allocated anew (then the neighbour table is unknown).
  bool rehash_from_slots(std::int32_t cells) {
    // A map far larger than needed slows every lookup's cache footprint: shrink it.
    const bool shrink = map_.capacity() > 4 * static_cast<std::size_t>(cells) + 4096;
    // UnorderedMap makes room for 7/6 of the entries it is asked for: asking for 6/7 of the
    // capacity keeps it, so repeated compactions do not grow the map.
    const bool allocated =
        fill_map(shrink ? static_cast<std::size_t>(1.3 * cells + 1024) : map_.capacity() * 6 / 7, cells);
    rehashes_ += shrink;
    return allocated;
  }

  // Moves the rows of a compaction's m cells to their new slots (compact's new_slot, in the
  // direction masks) and renames each entry to its neighbour's new slot, -1 where that
  // neighbour was removed. A kept cell's neighbours are all in its old row, so the table
  // stays whole without a lookup in the map. One column at a time, through the prune marks:
  // the only int32 array free by then. Public: nvcc takes no device lambda in a private
  // member function.
  void move_neighbours(std::int32_t m, std::int32_t kept) {
    auto neighbour = neighbour_;
    auto new_slot = direction_;
    auto moved = keep_;
    for (int d = 0; d < 2 * n_; ++d) {
      Kokkos::parallel_for(
          "pk::gbees::prune::neighbours", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
          KOKKOS_LAMBDA(const int c) {
            const std::int32_t s = new_slot(c);
            if (s < 0) return;
            const std::int32_t other = neighbour(c, d);
            moved(s) = other >= 0 ? new_slot(other) : -1;
          });
      Kokkos::parallel_for(
          "pk::gbees::prune::neighbours_back", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, kept),
          KOKKOS_LAMBDA(const int s) { neighbour(s, d) = moved(s); });
    }
  }

 private:
  // A new map of a size `hint` asks for, holding key(s) -> s for s < cells, with cell arrays
  // for every slot it can fill: the state a checkpoint can rebuild (Rebuilt). Returns whether
  // the cell arrays were allocated anew.
  bool fill_map(std::size_t hint, std::int32_t cells) {
    map_ = new_map(hint);
    const bool allocated = allocate_cells(map_.capacity());
    insert_slots(cells);
    set_count(cells);
    rebuilt_ = true;
    rebuilt_map_capacity_ = map_.capacity();
    rebuilt_capacity_ = capacity();
    return allocated;
  }

  // An empty map on the grid's instance: rather than Kokkos::UnorderedMap's rehash and clear,
  // which run on the default instance, the grid makes a new map and inserts its slots.
  Map new_map(std::size_t capacity) const {
    const auto properties = Kokkos::view_alloc(space_, std::string("pk::gbees::grid::map"));
    if constexpr (std::is_constructible_v<Map, decltype(properties), std::uint32_t>)
      return Map(properties, static_cast<std::uint32_t>(capacity));
    else  // a Kokkos without instances for UnorderedMap (3.4): its default instance
      return Map(static_cast<std::uint32_t>(capacity));
  }

  // Inserts key(s) -> s for s < cells into the map.
  void insert_slots(std::int32_t cells) {
    Kokkos::View<int, memory_space> failures(Kokkos::view_alloc(space_, "pk::gbees::grid::rehash_failures"));
    Kokkos::parallel_for("pk::gbees::grid::rehash", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, cells),
                         InsertSlot{map_, key_, failures});
    const int failed = read_scalar(space_, failures);
    if (failed != 0)
      throw InternalError("sparse grid: rehash lost " + std::to_string(failed) +
                          " cells (duplicate keys or a full map)");
  }

  // Makes the cell arrays at least `slots` long; returns whether it allocated them.
  bool allocate_cells(std::size_t slots) {
    if (key_.extent(0) >= slots) return false;
    if (key_.extent(0) == 0) {
      key_ = Kokkos::View<std::uint64_t*, memory_space>(Kokkos::view_alloc(space_, "pk::gbees::cell_key"), slots);
      probability_ =
          Kokkos::View<double*, memory_space>(Kokkos::view_alloc(space_, "pk::gbees::cell_probability"), slots);
      direction_ =
          Kokkos::View<std::int32_t*, memory_space>(Kokkos::view_alloc(space_, "pk::gbees::cell_direction"), slots);
    } else {  // growth may be half done: the direction masks must survive too
      grow(key_, slots);
      grow(probability_, slots);
      grow(direction_, slots);
    }
    // Fluxes, neighbours, marks and moved keys are scratch: rebuilt before use, so not
    // preserved (and released before the new ones are allocated).
    flux_ = FluxView();
    neighbour_ = NeighbourView();
    keep_ = Kokkos::View<std::int32_t*, memory_space>();
    moved_key_ = Kokkos::View<std::uint64_t*, memory_space>();
    sort_scratch_ = Kokkos::View<std::uint64_t*, memory_space>();
    flux_ = FluxView(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::gbees::face_flux"), slots, n_);
    neighbour_ =
        NeighbourView(Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::gbees::neighbour"), slots, 2 * n_);
    keep_ = Kokkos::View<std::int32_t*, memory_space>(Kokkos::view_alloc(space_, "pk::gbees::prune_mark"), slots);
    moved_key_ = Kokkos::View<std::uint64_t*, memory_space>(
        Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::gbees::compaction_key"), slots);
    if (z_order_) allocate_sort_scratch(slots);
    // "No neighbour known" until the caller rebuilds the table.
    Kokkos::deep_copy(space_, neighbour_, -1);
    space_.fence();
    return true;
  }

  void allocate_sort_scratch(std::size_t slots) {
    sort_scratch_ = Kokkos::View<std::uint64_t*, memory_space>();
    sort_scratch_ = Kokkos::View<std::uint64_t*, memory_space>(
        Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::gbees::compaction_sort_scratch"), slots);
  }

  // Kokkos::resize on the grid's instance: new entries zero, the others kept.
  template <class View>
  void grow(View& view, std::size_t slots) const {
    View grown(Kokkos::view_alloc(space_, view.label()), slots);
    Kokkos::deep_copy(space_, Kokkos::subview(grown, std::make_pair(std::size_t(0), view.extent(0))), view);
    view = grown;
  }

  ExecutionSpace space_;
  int n_;
  KeyCodec codec_;
  std::size_t max_cells_;
  bool z_order_;
  std::size_t rehashes_ = 0;
  Map map_;
  Kokkos::View<std::uint64_t*, memory_space> key_;
  Kokkos::View<double*, memory_space> probability_;
  FluxView flux_;
  NeighbourView neighbour_;
  Kokkos::View<std::int32_t*, memory_space> keep_;
  Kokkos::View<std::uint64_t*, memory_space> moved_key_;
  Kokkos::View<std::uint64_t*, memory_space> sort_scratch_;
  Kokkos::View<std::int32_t*, memory_space> direction_;
  Kokkos::View<std::int32_t, memory_space> device_count_;
  Kokkos::View<int, memory_space> insert_failed_;
  std::int32_t count_ = 0;
  mutable bool rebuilt_ = false;  // no insert since rehash_from_slots
  std::size_t rebuilt_map_capacity_ = 0, rebuilt_capacity_ = 0;
};

}  // namespace Details

}  // namespace pk::gbees
