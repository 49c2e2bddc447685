#pragma once
// Kernels of the LBM solver: BGK collision, the pressure-boundary rule, and the three
// streaming kernels (A-B pull; A-A collide-in-place and stream-collide-stream).
//
// Storage. Distributions are structure-of-arrays, View<Storage**, LayoutLeft>: for each
// direction q the cells are contiguous, x fastest, so consecutive GPU threads (and
// consecutive iterations of a CPU thread) touch consecutive addresses for every q: loads
// and stores coalesce / stream. slot() gives the element of (cell, q). Each value is
// stored shifted by its rest-state equilibrium, g_q = f_q - w_q (rho_0 = 1): the stored
// numbers are small, so fp32 keeps the digits that carry the flow instead of spending
// them on the constant w_q. Storage is float, double, or a 16-bit half type (fp16
// storage): kernels convert on load and store and compute in arithmetic_t<Storage>.
//
// Layouts of the A-A lattice A (f*_q(x) = post-collision population of cell x, direction q):
//   after an odd number of steps ("swapped"):  A(x, opposite(q)) = f*_q(x)
//   after an even number of steps ("streamed"): A(x + c_q, q) = f*_q(x), or A(x, opposite(q))
//     when x + c_q is a wall (the bounced population waits at home).
// Even steps (paper's A-A:1) read incoming populations at home and write them back swapped;
// odd steps (A-A:2) gather from the neighbours' swapped slots and scatter to the neighbours.
// Each cell reads and writes the same set of slots, so cells may run in any order in place.
#include <pk/core/binary16.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace pk::lbm::details {

// The type kernels compute in for a storage type: fp16 lattices compute in fp32.
template <class Storage>
using arithmetic_t = std::conditional_t<std::is_same_v<Storage, double>, double, float>;

template <class Storage, class MemorySpace>
using Lattice = Kokkos::View<Storage**, Kokkos::LayoutLeft, MemorySpace>;

constexpr std::uint8_t fluid_flag = static_cast<std::uint8_t>(CellType::fluid);
constexpr std::uint8_t solid_flag = static_cast<std::uint8_t>(CellType::solid);
constexpr std::uint8_t inlet_flag = static_cast<std::uint8_t>(CellType::inlet);

// Where post-collision populations currently are.
enum class Layout { home, swapped, streamed };  // A-B: home; A-A: swapped or streamed

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
  int nx, ny, nz;
  bool periodic_x, periodic_y, periodic_z;

  // Set by MarkWalls: the step kernels read a cell's 4-byte walls word only when its type
  // byte says it has walls (plain fluid cells, most of them, do not).
  static constexpr std::uint8_t walls_bit = 0x80;
  // Ghost cells (distributed runs: a neighbour rank's cells) are stored as solid | ghost_bit:
  // every kernel skips them as solid, but links into them are open (link()), so the
  // owned cells beside them stream as they would in one lattice.
  static constexpr std::uint8_t ghost_bit = 0x40;

  KOKKOS_INLINE_FUNCTION static std::uint8_t type_of(std::uint8_t raw) {
    return static_cast<std::uint8_t>(raw & ~(walls_bit | ghost_bit));
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
  KOKKOS_INLINE_FUNCTION static int step(std::uint32_t w, int axis, int c, int extent, int stride) {
    if (c == 0) return 0;
    const bool wraps = (w >> (face_bit + 2 * axis + (c > 0 ? 1 : 0))) & 1u;
    return c * (wraps ? 1 - extent : 1) * stride;
  }
  // The cell that population q of `cell` (walls word w) streams to, or -1 at a wall.
  template <int q>
  KOKKOS_INLINE_FUNCTION int neighbour(int cell, std::uint32_t w) const {
    if (q == 0) return cell;
    if ((w >> q) & 1u) return -1;
    return cell + step(w, 0, D3Q19::cx(q), nx, 1) + step(w, 1, D3Q19::cy(q), ny, nx) +
           step(w, 2, D3Q19::cz(q), nz, nx * ny);
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

// Shifted lattices keep `margin` elements (128 bytes in fp32) before and after the cells,
// so that they stay in bounds and aligned.
constexpr int margin = 32;

// Slot of direction q of `cell` in lattice f. Shifted storage (fp32 A-A in the cells
// traversal) keeps it c_x(q) elements earlier: the odd step, which reaches direction q of
// a cell's neighbour at x + c_x(q), then reads and writes whole 128-byte lines per warp,
// where plain storage has 10 of 19 directions one element off (~10 % of the odd step on
// the H100). The even step takes the offsets instead, and stages them through scratch
// (StagedCollide).
template <class View>
KOKKOS_FORCEINLINE_FUNCTION auto& slot(const View& f, int cell, int q, bool shifted) {
  return f(shifted ? cell + margin - D3Q19::cx(q) : cell, q);
}

// Density excess (rho - 1) and velocity of shifted populations g.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void moments(const Real (&g)[D3Q19::size], Real& density_excess, Real (&u)[3]) {
  Real s = 0, jx = 0, jy = 0, jz = 0;
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    s += g[q];
    if constexpr (D3Q19::cx(q) != 0) jx += D3Q19::cx(q) * g[q];
    if constexpr (D3Q19::cy(q) != 0) jy += D3Q19::cy(q) * g[q];
    if constexpr (D3Q19::cz(q) != 0) jz += D3Q19::cz(q) * g[q];
  });
  const Real inverse_density = Real(1) / (Real(1) + s);
  density_excess = s;
  u[0] = jx * inverse_density;
  u[1] = jy * inverse_density;
  u[2] = jz * inverse_density;
}

// Shifted equilibrium g_q^eq = f_q^eq - w_q for density 1 + density_excess and velocity u:
// f^eq_q = w_q rho (1 + 3 c.u + 9/2 (c.u)^2 - 3/2 u^2).
template <class Real, int q>
KOKKOS_FORCEINLINE_FUNCTION Real shifted_equilibrium(Real density_excess, const Real (&u)[3], Real three_halves_u2) {
  const Real w = static_cast<Real>(D3Q19::weight(q));
  Real cu = 0;
  if constexpr (D3Q19::cx(q) != 0) cu += D3Q19::cx(q) * u[0];
  if constexpr (D3Q19::cy(q) != 0) cu += D3Q19::cy(q) * u[1];
  if constexpr (D3Q19::cz(q) != 0) cu += D3Q19::cz(q) * u[2];
  cu *= Real(3);
  return w * (density_excess + (Real(1) + density_excess) * (cu + Real(0.5) * cu * cu - three_halves_u2));
}

// BGK: g_q <- g_q + omega (g_q^eq - g_q), omega = 1 / tau. Conserves mass and momentum.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide_bgk(Real (&g)[D3Q19::size], Real omega) {
  Real density_excess, u[3];
  moments(g, density_excess, u);
  const Real three_halves_u2 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    g[q] += omega * (shifted_equilibrium<Real, q>(density_excess, u, three_halves_u2) - g[q]);
  });
}

// Pressure boundary (Zou & He; Hecht & Harting's D3Q19 form) on a cell with inward normal n:
// the populations coming from outside (c.n = +1) are unknown. With the density fixed and
// the tangential velocity zero, mass fixes u_n and bounce-back of the non-equilibrium part,
// corrected for tangential momentum, fixes the unknowns:
//   rho u_n = rho - (S_0 + 2 S_-),   f_q = f_-q + 6 w_q rho u_n - (c_q . T) / 2,
// with S_0, S_- the sums over c.n = 0 and c.n = -1 and T = sum_{c.n=0} c f.
// In shifted storage S_0 + 2 S_- gains exactly 1 (the weights' share), hence `- 1` below.
template <class Real>
KOKKOS_INLINE_FUNCTION void pressure_boundary(Real (&g)[D3Q19::size], int n0, int n1, int n2, Real density_excess) {
  Real along = 0, against = 0, t0 = 0, t1 = 0, t2 = 0;
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const int cn = D3Q19::cx(q) * n0 + D3Q19::cy(q) * n1 + D3Q19::cz(q) * n2;
    if (cn == 0) {
      along += g[q];
      t0 += D3Q19::cx(q) * g[q];
      t1 += D3Q19::cy(q) * g[q];
      t2 += D3Q19::cz(q) * g[q];
    } else if (cn < 0) {
      against += g[q];
    }
  });
  const Real rho_un = density_excess - (along + Real(2) * against);
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const int cn = D3Q19::cx(q) * n0 + D3Q19::cy(q) * n1 + D3Q19::cz(q) * n2;
    if (cn > 0) {
      const Real ct = D3Q19::cx(q) * t0 + D3Q19::cy(q) * t1 + D3Q19::cz(q) * t2;
      g[q] = g[D3Q19::opposite(q)] + Real(6 * D3Q19::weight(q)) * rho_un - Real(0.5) * ct;
    }
  });
}

enum class Kernel { ab_stream_collide, aa_collide, aa_stream_collide_stream };

// A box of cells, [x0, x1) x [y0, y1) x [z0, z1): part of a step (a distributed run steps
// the layers beside its ghost layers first, then the rest while the exchange runs).
struct CellBox {
  int x0, x1, y0, y1, z0, z1;

  KOKKOS_INLINE_FUNCTION int rows() const { return (y1 - y0) * (z1 - z0); }
  KOKKOS_INLINE_FUNCTION int cells() const { return (x1 - x0) * rows(); }
  // Row k of the box (y fastest) as a lattice row y + ny * z.
  KOKKOS_INLINE_FUNCTION int row(int k, int ny) const { return y0 + k % (y1 - y0) + ny * (z0 + k / (y1 - y0)); }
  // Cell i of the box (x fastest) as a lattice cell.
  KOKKOS_INLINE_FUNCTION int cell(int i, int nx, int ny) const {
    return x0 + i % (x1 - x0) + nx * row(i / (x1 - x0), ny);
  }
};

// One time step on every non-solid cell, on a lattice in shifted storage (slot()) or not.
template <class ExecutionSpace, class Storage, Kernel kernel, bool shifted>
struct StreamCollide {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> source;  // A-A: source == target
  Lattice<Storage, MemorySpace> target;
  Grid<MemorySpace> grid;
  Real omega;
  Real inlet_excess, outlet_excess;  // prescribed density - 1

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    const std::uint8_t raw = grid.cell_type(cell);
    const std::uint8_t type = Grid<MemorySpace>::type_of(raw);
    if (type == solid_flag) return;
    const std::uint32_t w = kernel == Kernel::aa_collide ? 0u : grid.walls_of(cell, raw);

    Real g[D3Q19::size];
    for_each_direction([&](auto qc) {  // incoming f_q(x) = f*_q(x - c_q), x - c_q = x + c_{-q}
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      if constexpr (kernel == Kernel::aa_collide) {
        g[q] = load(cell, q);
      } else {
        const int from = grid.template neighbour<o>(cell, w);
        if constexpr (kernel == Kernel::ab_stream_collide)
          g[q] = from >= 0 ? load(from, q) : load(cell, o);
        else
          g[q] = from >= 0 ? load(from, o) : load(cell, q);
      }
    });
    relax(g, type, cell);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      if constexpr (kernel == Kernel::ab_stream_collide) {
        store(cell, q, g[q]);
      } else if constexpr (kernel == Kernel::aa_collide) {
        store(cell, o, g[q]);
      } else {
        const int to = grid.template neighbour<q>(cell, w);
        if (to >= 0)
          store(to, q, g[q]);
        else
          store(cell, o, g[q]);
      }
    });
  }

  KOKKOS_FORCEINLINE_FUNCTION Real load(int cell, int q) const {
    return static_cast<Real>(slot(source, cell, q, shifted));
  }
  KOKKOS_FORCEINLINE_FUNCTION void store(int cell, int q, Real value) const {
    slot(target, cell, q, shifted) = static_cast<Storage>(value);
  }
  // The pressure boundary where the cell has one, then the BGK collision.
  KOKKOS_INLINE_FUNCTION void relax(Real (&g)[D3Q19::size], std::uint8_t type, int cell) const {
    if (type != fluid_flag) {
      int x, y, z, n0, n1, n2;
      grid.coordinates(cell, x, y, z);
      grid.normal(x, y, z, n0, n1, n2);
      pressure_boundary(g, n0, n1, n2, type == inlet_flag ? inlet_excess : outlet_excess);
    }
    collide_bgk(g, omega);
  }
};

// Host spaces run the step kernels a row at a time by default (StreamCollideRows).
template <class ExecutionSpace>
constexpr bool runs_rows =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible;

// The storage type of a lattice of the given precision on a space: float and double as
// they are; pk::Binary16 (fp16 storage) as itself on host spaces and as the device's own
// half type where Kokkos has one (CUDA's __half: the same bits, converted by one
// instruction each way where Binary16 takes a dozen).
template <class Precision, class ExecutionSpace>
using storage_t = std::conditional_t<std::is_same_v<Precision, Binary16> && !runs_rows<ExecutionSpace> &&
                                         sizeof(Kokkos::Experimental::half_t) == sizeof(Binary16),
                                     Kokkos::Experimental::half_t, Precision>;

// One time step on every non-solid cell of an x-row (row = y + ny * z), for CPU threads.
// Per cell, the gathers, the collision and the scatters depend on the cell's links, so the
// compiler cannot turn a loop over cells into SIMD code. But in a run of consecutive plain
// cells (fluid, no wall link, not on a periodic face) every population comes from and goes
// to consecutive addresses: such runs are loaded, collided and stored by loops across the
// run, which vectorise. Other cells take the per-cell kernel. The run is read whole before
// anything is written, which keeps A-A's in-place update correct.
template <class ExecutionSpace, class Storage, Kernel kernel>
struct StreamCollideRows {
  static constexpr int lanes = 16;  // cells per run: 16 floats fill an AVX-512 register
  using Real = arithmetic_t<Storage>;
  StreamCollide<ExecutionSpace, Storage, kernel, false> cells;  // plain storage

  KOKKOS_INLINE_FUNCTION void operator()(const int row) const { update_row(row, 0, cells.grid.nx); }

  // The cells x0 .. x1 - 1 of a row.
  KOKKOS_INLINE_FUNCTION void update_row(const int row, const int x0, const int x1) const {
    const int end = row * cells.grid.nx + x1;
    for (int cell = row * cells.grid.nx + x0; cell < end;) {
      int run = 0;
      while (run < lanes && cell + run < end && plain(cell + run)) ++run;
      if (run == 0) {
        cells(cell);
        ++cell;
      } else {
        update_run(cell, run);
        cell += run;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION bool plain(int cell) const {
    // the even step reads no links; the others need a walls word of 0 (no walls_bit)
    return (kernel == Kernel::aa_collide ? cells.grid.type(cell) : cells.grid.cell_type(cell)) == fluid_flag;
  }

  // The per-cell kernel's accesses for plain cells `first` .. `first + count - 1`.
  KOKKOS_INLINE_FUNCTION void update_run(const int first, const int count) const {
    const Grid<typename ExecutionSpace::memory_space>& grid = cells.grid;
    Real g[D3Q19::size][lanes];
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      const Storage* from = kernel == Kernel::aa_collide ? &cells.source(first, q)
                            : kernel == Kernel::ab_stream_collide
                                ? &cells.source(grid.template neighbour<o>(first, 0u), q)
                                : &cells.source(grid.template neighbour<o>(first, 0u), o);
      for (int l = 0; l < count; ++l) g[q][l] = static_cast<Real>(from[l]);
    });
    for (int l = 0; l < count; ++l) {
      Real cell[D3Q19::size];
      for_each_direction([&](auto qc) { cell[decltype(qc)::value] = g[decltype(qc)::value][l]; });
      collide_bgk(cell, cells.omega);
      for_each_direction([&](auto qc) { g[decltype(qc)::value][l] = cell[decltype(qc)::value]; });
    }
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      Storage* to = kernel == Kernel::ab_stream_collide ? &cells.target(first, q)
                    : kernel == Kernel::aa_collide      ? &cells.target(first, o)
                                                        : &cells.target(grid.template neighbour<q>(first, 0u), q);
      for (int l = 0; l < count; ++l) to[l] = static_cast<Storage>(g[q][l]);
    });
  }
};

// A step kernel on the cells of a box: per cell, or per row.
template <class Cells>
struct BoxCells {
  Cells cells;
  CellBox box;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { cells(box.cell(i, cells.grid.nx, cells.grid.ny)); }
};
template <class Rows>
struct BoxRows {
  Rows rows;
  CellBox box;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    rows.update_row(box.row(k, rows.cells.grid.ny), box.x0, box.x1);
  }
};

// Post-collision populations f*_q(cell) - w_q of a non-solid cell, whatever the layout.
template <class MemorySpace, class Storage, class Real>
KOKKOS_INLINE_FUNCTION void post_collision(const Lattice<Storage, MemorySpace>& f, const Grid<MemorySpace>& grid,
                                           Layout layout, bool shifted, int cell, Real (&g)[D3Q19::size]) {
  const auto value = [&](int at, int q) { return static_cast<Real>(slot(f, at, q, shifted)); };
  if (layout == Layout::streamed) {
    const std::uint32_t w = grid.walls(cell);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const int to = grid.template neighbour<q>(cell, w);
      g[q] = to >= 0 ? value(to, q) : value(cell, D3Q19::opposite(q));
    });
  } else {
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      g[q] = layout == Layout::home ? value(cell, q) : value(cell, D3Q19::opposite(q));
    });
  }
}

}  // namespace pk::lbm::details
