#pragma once
// The lattice's topology on the device: cell types, the walls word of each cell (which links
// hit a wall, which cross a periodic face), the neighbour a population streams to, and boxes
// of cells (parts of a step).
#include <pk/core/tuning.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::lbm::Details {

constexpr std::uint8_t fluid_flag = static_cast<std::uint8_t>(CellType::fluid);
constexpr std::uint8_t solid_flag = static_cast<std::uint8_t>(CellType::solid);
constexpr std::uint8_t inlet_flag = static_cast<std::uint8_t>(CellType::inlet);

template <class MemorySpace>
struct Grid {
  // Bits of a cell's `walls` word above the 19 link bits: the cell lies on the low / high
  // face of a periodic axis, so a population leaving through it re-enters on the far side.
  static constexpr int face_bit = D3Q19::size;  // x low, x high, y low, y high, z low, z high

  // CellType per cell, plus walls_bit on non-solid cells whose walls word is not 0.
  Kokkos::View<std::uint8_t*, MemorySpace> cell_type;
  // Per cell: bit q set when link q is a wall (see link()), plus the periodic face bits.
  // Built once (BuildWalls), it turns every link into arithmetic on the cell index, which
  // the step kernels recompute where needed instead of holding 19 indices in registers.
  Kokkos::View<std::uint32_t*, MemorySpace> walls;
  // The cell groups (cell_group) holding a cell with walls_bit, ascending (ListWalledGroups).
  Kokkos::View<int*, MemorySpace> walled_groups;
  int nx, ny, nz;
  bool periodic_x, periodic_y, periodic_z;

  // Set by MarkWalls and MarkWalledGroups: the step kernels read a cell's 4-byte walls word
  // only when its type byte says it may have walls (plain fluid cells, most of them, do not).
  static constexpr std::uint8_t walls_bit = 0x80;
  // Ghost cells (distributed runs: a neighbour rank's cells) are stored as solid | ghost_bit:
  // every kernel skips them as solid, but links into them are open (link()), so the
  // owned cells beside them stream as they would in one lattice.
  static constexpr std::uint8_t ghost_bit = 0x40;
  // Set by MarkWalledGroups in a step split by walls: the cell's group takes the walled pass.
  static constexpr std::uint8_t walled_pass_bit = 0x20;

  KOKKOS_INLINE_FUNCTION static std::uint8_t type_of(std::uint8_t raw) {
    return static_cast<std::uint8_t>(raw & ~(walls_bit | ghost_bit | walled_pass_bit));
  }
  KOKKOS_INLINE_FUNCTION std::uint8_t type(int cell) const { return type_of(cell_type(cell)); }
  // The walls word of a cell whose type byte is `raw`: 0 without reading it for plain cells.
  KOKKOS_INLINE_FUNCTION std::uint32_t walls_of(int cell, std::uint8_t raw) const {
    return raw & walls_bit ? walls(cell) : 0u;
  }
  KOKKOS_INLINE_FUNCTION void coordinates(int cell, int& x, int& y, int& z) const {
    x = cell % nx;
    const int yz = cell / nx;
    y = yz % ny;
    z = yz / ny;
  }
  // The cell a population of velocity (dx, dy, dz) reaches from (x, y, z), or -1 when it
  // hits a wall (a solid cell or a non-periodic box face): then it bounces back.
  KOKKOS_INLINE_FUNCTION int link(int x, int y, int z, int dx, int dy, int dz) const {
    x += dx;
    y += dy;
    z += dz;
    if (x < 0 || x >= nx) {
      if (!periodic_x) return -1;
      x = x < 0 ? x + nx : x - nx;
    }
    if (y < 0 || y >= ny) {
      if (!periodic_y) return -1;
      y = y < 0 ? y + ny : y - ny;
    }
    if (z < 0 || z >= nz) {
      if (!periodic_z) return -1;
      z = z < 0 ? z + nz : z - nz;
    }
    const int cell = x + nx * (y + ny * z);
    return type(cell) == solid_flag && !(cell_type(cell) & ghost_bit) ? -1 : cell;
  }
  // Index step of one cell along an axis in direction c (-1, 0, 1), wrapping across a
  // periodic face when the walls word says the cell lies on it.
  KOKKOS_FORCEINLINE_FUNCTION static int step(std::uint32_t w, int axis, int c, int extent, int stride) {
    if (c == 0) return 0;
    const bool wraps = (w >> (face_bit + 2 * axis + (c > 0 ? 1 : 0))) & 1u;
    return c * (wraps ? 1 - extent : 1) * stride;
  }
  // The cell that population q of `cell` (walls word w) streams to, or -1 at a wall.
  template <int q>
  KOKKOS_FORCEINLINE_FUNCTION int neighbour(int cell, std::uint32_t w) const {
    if (q == 0) return cell;
    if ((w >> q) & 1u) return -1;
    return cell + step(w, 0, D3Q19::cx(q), nx, 1) + step(w, 1, D3Q19::cy(q), ny, nx) +
           step(w, 2, D3Q19::cz(q), nz, nx * ny);
  }
  // The same for a cell whose walls word w holds at most the periodic x faces (open_faces):
  // no wall test, and a wrap in x costs two offsets per cell, not a branch per link. Every
  // row of a lattice periodic in x has two such cells; rows on y or z faces are few.
  static constexpr std::uint32_t open_faces = 3u << face_bit;
  template <int q>
  KOKKOS_INLINE_FUNCTION int open_neighbour(int cell, std::uint32_t w) const {
    return cell + step(w, 0, D3Q19::cx(q), nx, 1) + nx * (D3Q19::cy(q) + ny * D3Q19::cz(q));
  }
  // Inward normal of a pressure cell: the non-periodic box face it lies on (validated
  // on the host to be exactly one).
  KOKKOS_INLINE_FUNCTION void normal(int x, int y, int z, int& n0, int& n1, int& n2) const {
    n0 = periodic_x ? 0 : (x == 0 ? 1 : (x == nx - 1 ? -1 : 0));
    n1 = periodic_y ? 0 : (y == 0 ? 1 : (y == ny - 1 ? -1 : 0));
    n2 = periodic_z ? 0 : (z == 0 ? 1 : (z == nz - 1 ? -1 : 0));
  }
};

// Fills grid.walls from link() and the box's periodic faces.
template <class MemorySpace>
struct BuildWalls {
  Grid<MemorySpace> grid;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    using G = Grid<MemorySpace>;
    int x, y, z;
    grid.coordinates(cell, x, y, z);
    std::uint32_t w = 0;
    for (int q = 1; q < D3Q19::size; ++q)
      if (grid.link(x, y, z, D3Q19::cx(q), D3Q19::cy(q), D3Q19::cz(q)) < 0) w |= 1u << q;
    const int at[3] = {x, y, z}, extent[3] = {grid.nx, grid.ny, grid.nz};
    const bool periodic[3] = {grid.periodic_x, grid.periodic_y, grid.periodic_z};
    for (int axis = 0; axis < 3; ++axis) {
      if (!periodic[axis]) continue;
      if (at[axis] == 0) w |= 1u << (G::face_bit + 2 * axis);
      if (at[axis] == extent[axis] - 1) w |= 1u << (G::face_bit + 2 * axis + 1);
    }
    grid.walls(cell) = w;
  }
};

// Sets Grid::walls_bit from the walls words (a pass of its own: BuildWalls reads the
// neighbours' type bytes).
template <class MemorySpace>
struct MarkWalls {
  Grid<MemorySpace> grid;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    if (grid.type(cell) != solid_flag && grid.walls(cell) != 0u) grid.cell_type(cell) |= Grid<MemorySpace>::walls_bit;
  }
};

// Cells are grouped by warps (wavefronts on AMD GPUs): group k is cells k * cell_group ..
// (k + 1) * cell_group - 1. In a step split by walls, where a group holds a cell with a wall
// link or on a periodic y or z face the whole group takes the walled pass (MarkWalledGroups
// gives every cell Grid::walled_pass_bit), so no warp runs both paths. Cells on periodic x faces stay on the
// open path (Grid::open_neighbour).
template <class ExecutionSpace>
constexpr int cell_group = Tuning<ExecutionSpace>::lockstep_threads;

// Lists the groups with a non-solid cell that the open path cannot step (a wall link, a
// periodic y or z face) in grid.walled_groups (sized by a first run that leaves it empty).
template <class ExecutionSpace>
struct ListWalledGroups {
  static constexpr int group = cell_group<ExecutionSpace>;
  Grid<typename ExecutionSpace::memory_space> grid;

  KOKKOS_INLINE_FUNCTION void operator()(const int k, int& count, const bool final) const {
    using G = Grid<typename ExecutionSpace::memory_space>;
    const int cells = grid.cell_type.extent_int(0), end = (k + 1) * group < cells ? (k + 1) * group : cells;
    bool walled = false;
    for (int cell = k * group; cell < end; ++cell) {
      const std::uint8_t raw = grid.cell_type(cell);
      walled = walled || (G::type_of(raw) != solid_flag && (grid.walls_of(cell, raw) & ~G::open_faces));
    }
    if (!walled) return;
    if (final && grid.walled_groups.extent(0) > 0) grid.walled_groups(count) = k;
    ++count;
  }
};

// Cell i % cell_group of walled group i / cell_group, or -1 past the lattice's end.
template <class ExecutionSpace, class MemorySpace>
KOKKOS_INLINE_FUNCTION int walled_group_cell(const Grid<MemorySpace>& grid, int i) {
  constexpr int group = cell_group<ExecutionSpace>;
  const int cell = grid.walled_groups(i / group) * group + i % group;
  return cell < grid.cell_type.extent_int(0) ? cell : -1;
}

// Sets Grid::walled_pass_bit on every non-solid cell of the walled groups (thread i: cell i
// of them).
template <class ExecutionSpace>
struct MarkWalledGroups {
  Grid<typename ExecutionSpace::memory_space> grid;

  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int cell = walled_group_cell<ExecutionSpace>(grid, i);
    if (cell >= 0 && grid.type(cell) != solid_flag)
      grid.cell_type(cell) |= Grid<typename ExecutionSpace::memory_space>::walled_pass_bit;
  }
};

// A box of cells, [x0, x1) x [y0, y1) x [z0, z1): part of a step (a distributed run steps
// the layers beside its ghost layers first, then the rest while the exchange runs).
struct CellBox {
  int x0, x1, y0, y1, z0, z1;

  KOKKOS_INLINE_FUNCTION int rows() const { return (y1 - y0) * (z1 - z0); }
  KOKKOS_INLINE_FUNCTION int cells() const { return (x1 - x0) * rows(); }
  // Whether the box spans whole x-y planes of an nx x ny lattice: its cells are consecutive.
  bool whole_planes(int nx, int ny) const { return x0 == 0 && x1 == nx && y0 == 0 && y1 == ny; }
  // Row k of the box (y fastest) as a lattice row y + ny * z.
  KOKKOS_INLINE_FUNCTION int row(int k, int ny) const { return y0 + k % (y1 - y0) + ny * (z0 + k / (y1 - y0)); }
  // Cell i of the box (x fastest) as a lattice cell.
  KOKKOS_INLINE_FUNCTION int cell(int i, int nx, int ny) const {
    return x0 + i % (x1 - x0) + nx * row(i / (x1 - x0), ny);
  }
};

}  // namespace pk::lbm::Details
