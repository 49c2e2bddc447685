#include <pk/core/error.hpp>
#include <pk/lbm/slabs.hpp>

#include <array>
#include <string>

namespace pk::lbm {

int split_axis(const Geometry& geometry, int ranks, SlabAxis asked) {
  if (asked != SlabAxis::automatic) return static_cast<int>(asked);
  int axis = 2;  // z when it has a layer for every rank; else the longest axis, ties to the later
  if (geometry.nz() >= ranks) return axis;
  for (int a = 1; a >= 0; --a)
    if (geometry.extent(a) > geometry.extent(axis)) axis = a;
  return axis;
}

Slab slab_of(const Geometry& geometry, int ranks, int rank, SlabAxis asked) {
  Slab slab;
  slab.axis = split_axis(geometry, ranks, asked);
  slab.extent = geometry.extent(slab.axis);
  const std::string axis(1, "xyz"[slab.axis]);
  require(
      ranks >= 1 && ranks <= slab.extent,
      std::to_string(ranks) + " ranks, but the lattice has only " + std::to_string(slab.extent) + " layers along " +
          (asked == SlabAxis::automatic ? "any axis (" + axis + " has the most)" : axis + ", the slab axis asked for") +
          ": use at most " + std::to_string(slab.extent) + " ranks");
  require(rank >= 0 && rank < ranks, "rank " + std::to_string(rank) + " outside 0.." + std::to_string(ranks - 1));
  const int base = slab.extent / ranks, extra = slab.extent % ranks;
  slab.begin = rank * base + (rank < extra ? rank : extra);
  slab.end = slab.begin + base + (rank < extra ? 1 : 0);
  const bool periodic = geometry.periodic(slab.axis);
  if (rank > 0 || periodic) slab.low_neighbour = (rank + ranks - 1) % ranks;
  if (rank < ranks - 1 || periodic) slab.high_neighbour = (rank + 1) % ranks;
  return slab;
}

Geometry local_geometry(const Geometry& global, const Slab& slab) {
  std::array<int, 3> extent = {global.nx(), global.ny(), global.nz()};
  std::array<bool, 3> periodic = {global.periodic(0), global.periodic(1), global.periodic(2)};
  extent[slab.axis] = slab.local_extent();
  periodic[slab.axis] = false;
  Geometry local(extent[0], extent[1], extent[2], periodic);
  const int ghost_high = slab.high_neighbour >= 0 ? slab.local_extent() - 1 : -1;
  for (int z = 0; z < extent[2]; ++z)
    for (int y = 0; y < extent[1]; ++y)
      for (int x = 0; x < extent[0]; ++x) {
        std::array<int, 3> at = {x, y, z};
        const int layer = at[slab.axis];
        at[slab.axis] = (slab.begin - slab.first_owned() + layer + slab.extent) % slab.extent;
        CellType type = global.at(at[0], at[1], at[2]);
        const bool ghost = (layer == 0 && slab.low_neighbour >= 0) || layer == ghost_high;
        if (ghost && (type == CellType::inlet || type == CellType::outlet)) type = CellType::fluid;
        local.set(x, y, z, type);
      }
  return local;
}

}  // namespace pk::lbm
