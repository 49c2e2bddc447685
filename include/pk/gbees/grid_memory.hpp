#pragma once
// What the GBEES grid costs: bytes per cell slot, the memory to plan for a run, and the bytes
// a time step moves per cell (its copy roofline).
namespace pk::gbees {

// Bytes Kokkos::UnorderedMap<uint64, int32> holds per entry of capacity: key 8, value 4,
// next index 4, hash-list head 4 (about one per entry), used-bitset 1/8.
inline constexpr double map_bytes_per_entry = 20.125;

// Where each cell slot's bytes go, for a grid of dimension n (issue #5 asks for <= 256 B per
// cell in 6-D).
struct MemoryBreakdown {
  double state = 0;         // key (8) + probability (8)
  double fluxes = 0;        // one face flux per axis (8 n)
  double neighbours = 0;    // backward and forward neighbour slots (2 n x 4)
  double hash_map = 0;      // UnorderedMap entries per cell slot
  double scratch = 0;       // prune marks (4), direction masks (4), keys moved by compaction (8)
  double sort_scratch = 0;  // the Z-order sort's scratch (8), where the grid keeps one (SparseGrid::z_order)
  double total() const { return state + fluxes + neighbours + hash_map + scratch + sort_scratch; }
};

// Bytes per cell slot (the cell arrays are sized to the map's capacity).
inline MemoryBreakdown bytes_per_slot(int dimension) {
  MemoryBreakdown b;
  b.state = 16;
  b.fluxes = 8.0 * dimension;
  b.neighbours = 8.0 * dimension;
  b.hash_map = map_bytes_per_entry;
  b.scratch = 16;
  b.sort_scratch = 8;
  return b;
}

// Device memory to plan for a grid that may hold `cells` cells, for refusing a run that
// cannot fit before it starts: 1.6 slots per cell, since growth rehashes the map to 1.3x
// the cells it must hold and Kokkos adds a sixth to what is asked (1.52x).
inline double planned_bytes(int dimension, double cells) { return 1.6 * cells * bytes_per_slot(dimension).total(); }

// The bytes a time step moves per live cell, kernel by kernel, for a grid of dimension n:
// each array element a kernel reads or writes counted once (a read-modify-write twice),
// the neighbours' values it gathers through the neighbour table at their size, as if every
// byte of each cache line or sector it fetches were used. The copy roofline of a step is
// then copy bandwidth / total(); the grid's random gathers and hash probes fetch more than
// this, which is what keeps a step below that roofline. Left out: the map probes of cells
// growth adds (a few per cent of the cells a step) and the prune every prune_interval steps.
struct StepTraffic {
  double grow = 0;                   // direction mask, key, neighbour row
  double neighbours_fluxes_cfl = 0;  // key, probability, forward neighbours and their probabilities, fluxes written
  double corner_transport = 0;       // key, probability, neighbour row and probabilities, each face flux updated
  double update = 0;                 // key, probability updated, neighbour row, own and backward fluxes
  double normalise = 0;              // key, probability scaled, direction mask written
  double total() const { return grow + neighbours_fluxes_cfl + corner_transport + update + normalise; }
  // The bandwidth a rate of cell-steps implies, in GB/s.
  double bandwidth_gbs(double cells_per_second) const { return cells_per_second * total() / 1e9; }
};

inline StepTraffic step_traffic(int dimension) {
  const double n = dimension;
  StepTraffic t;
  t.grow = 4 + 8 + 8 * n;
  t.neighbours_fluxes_cfl = 8 + 8 + 4 * n + 8 * n + 8 * n;
  t.corner_transport = 8 + 8 + 8 * n + 16 * n + 16 * n;
  t.update = 8 + 16 + 8 * n + 8 * n + 8 * n;
  t.normalise = 8 + 16 + 4;
  return t;
}

}  // namespace pk::gbees
