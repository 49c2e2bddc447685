#pragma once
// Cutting a lattice into slabs, one per rank, along one axis (z where it can: its planes are
// contiguous in memory). A rank holds its slab plus one ghost layer on each side that has a
// neighbour (D3Q19 links reach one cell): ghost cells mirror the
// neighbour's cells, the solver reads them but never updates them.
#include <pk/lbm/geometry.hpp>

namespace pk::lbm {

// Layers of a local lattice that mirror a neighbour's cells.
struct GhostLayers {
  int axis = 0;
  bool low = false, high = false;  // a ghost layer at local coordinate 0 / extent - 1
  // The layer inside the low / high ghost layer lies on a periodic face of the whole
  // lattice. On CPUs such cells take the per-cell kernel in one lattice (their walls word
  // holds the wrap), so they keep it here too: the SIMD runs round differently.
  bool wraps_low = false, wraps_high = false;
};

struct Slab {
  int axis = 0;             // the split axis: 0 x, 1 y, 2 z
  int extent = 1;           // layers of the whole lattice along it
  int begin = 0, end = 1;   // the owned layers [begin, end), global coordinates
  int low_neighbour = -1;   // rank owning layer begin - 1 (wrapping when periodic), -1: none
  int high_neighbour = -1;  // rank owning layer end, -1: none

  GhostLayers ghosts() const {
    return {axis, low_neighbour >= 0, high_neighbour >= 0, low_neighbour >= 0 && begin == 0,
            high_neighbour >= 0 && end == extent};
  }
  int layers() const { return end - begin; }
  // Local coordinate of global layer `begin`.
  int first_owned() const { return low_neighbour >= 0 ? 1 : 0; }
  int local_extent() const { return layers() + (low_neighbour >= 0) + (high_neighbour >= 0); }
};

// The axis slabs are cut along. `automatic` takes z whenever it has a layer for every rank:
// z planes are contiguous, and a box of whole z slab layers is a run of cells that takes one
// lattice's kernels, where an x or y slab's boxes take the per-cell kernel and x planes are
// strided. Otherwise the longest axis (ties to the later one).
enum class SlabAxis { automatic = -1, x = 0, y = 1, z = 2 };

// The axis `asked` resolves to for `ranks` ranks (0 x, 1 y, 2 z).
int split_axis(const Geometry& geometry, int ranks, SlabAxis asked = SlabAxis::automatic);

// The slab of `rank` among `ranks`: layers shared as evenly as possible, lower ranks take
// the remainder. Throws pk::Error when there are more ranks than layers.
Slab slab_of(const Geometry& geometry, int ranks, int rank, SlabAxis asked = SlabAxis::automatic);

// The lattice a rank holds: its slab and ghost layers, not periodic along the split axis
// (ghost layers carry the wrap). Inlet and outlet cells in ghost layers become fluid: the
// owner applies their boundary rule, and their box face is not a face of the slab.
Geometry local_geometry(const Geometry& global, const Slab& slab);

}  // namespace pk::lbm
