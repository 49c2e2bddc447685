#pragma once
// What the GBEES grid costs: bytes per cell slot, and the memory to plan for a run.
namespace pk::gbees {

// Bytes Kokkos::UnorderedMap<uint64, int32> holds per entry of capacity: key 8, value 4,
// next index 4, hash-list head 4 (about one per entry), used-bitset 1/8.
inline constexpr double map_bytes_per_entry = 20.125;

// Where each cell slot's bytes go, for a grid of dimension n (issue #5 asks for <= 256 B per
// cell in 6-D).
struct MemoryBreakdown {
  double state = 0;       // key (8) + probability (8)
  double fluxes = 0;      // one face flux per axis (8 n)
  double neighbours = 0;  // backward and forward neighbour slots (2 n x 4)
  double hash_map = 0;    // UnorderedMap entries per cell slot
  double scratch = 0;     // prune marks (4), direction masks (4), keys moved by compaction (8)
  double total() const { return state + fluxes + neighbours + hash_map + scratch; }
};

// Bytes per cell slot (the cell arrays are sized to the map's capacity).
inline MemoryBreakdown bytes_per_slot(int dimension) {
  MemoryBreakdown b;
  b.state = 16;
  b.fluxes = 8.0 * dimension;
  b.neighbours = 8.0 * dimension;
  b.hash_map = map_bytes_per_entry;
  b.scratch = 16;
  return b;
}

// Device memory to plan for a grid that may hold `cells` cells, for refusing a run that
// cannot fit before it starts: 1.6 slots per cell, since growth rehashes the map to 1.3x
// the cells it must hold and Kokkos adds a sixth to what is asked (1.52x).
inline double planned_bytes(int dimension, double cells) { return 1.6 * cells * bytes_per_slot(dimension).total(); }

}  // namespace pk::gbees
