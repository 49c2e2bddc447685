#pragma once
// The step kernels of the cells traversal, a thread per cell (GPUs): A-B pull, and A-A's
// collide in place (even steps) and stream-collide-stream (odd steps). See storage.hpp for
// the layouts they read and leave.
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>

namespace pk::lbm::Details {

enum class Kernel { ab_stream_collide, aa_collide, aa_stream_collide_stream };

// One time step on every non-solid cell, on a lattice in shifted storage (slot()) or not.
template <class ExecutionSpace, class Storage, Kernel kernel, bool shifted>
struct StreamCollide {
  using execution_space = ExecutionSpace;
  using MemorySpace = typename ExecutionSpace::memory_space;
  using storage_type = Storage;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> source;  // A-A: source == target
  Lattice<Storage, MemorySpace> target;
  Grid<MemorySpace> grid;
  Real omega;
  Real inlet_excess, outlet_excess;  // prescribed density - 1

  // The step of a cell, in one path whatever its walls.
  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    const std::uint8_t raw = grid.cell_type(cell);
    const std::uint8_t type = Grid<MemorySpace>::type_of(raw);
    if (type == solid_flag) return;
    update<true>(cell, type, kernel == Kernel::aa_collide ? 0u : grid.walls_of(cell, raw));
  }

  // The step of a cell outside the walled groups (OpenCells): no wall link, perhaps on a
  // periodic x face. The others are left to a pass of their own over the walled groups
  // (WalledCells).
  KOKKOS_INLINE_FUNCTION void step_open(const int cell) const {
    const std::uint8_t raw = grid.cell_type(cell);
    if (Grid<MemorySpace>::type_of(raw) == solid_flag || (raw & Grid<MemorySpace>::walled_pass_bit)) return;
    update<false>(cell, Grid<MemorySpace>::type_of(raw), grid.walls_of(cell, raw));
  }
  KOKKOS_INLINE_FUNCTION void step_walled(const int cell) const {
    const std::uint8_t type = grid.type(cell);
    if (type != solid_flag) update<true>(cell, type, grid.walls(cell));
  }

  // The step of a non-solid cell of the given type and walls word w. On the open path (a
  // walls word with at most the periodic x faces) every link leads to a neighbour at a
  // fixed index offset, or one of two in x: no per-link wall, wrap or bounce-back test,
  // half the odd step's instructions.
  template <bool walled>
  KOKKOS_FORCEINLINE_FUNCTION void update(const int cell, const std::uint8_t type, const std::uint32_t w) const {
    Real g[D3Q19::size];
    for_each_direction([&](auto qc) {  // incoming f_q(x) = f*_q(x - c_q), x - c_q = x + c_{-q}
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      if constexpr (kernel == Kernel::aa_collide) {
        g[q] = load(cell, q);
      } else {
        const int from = walled ? grid.template neighbour<o>(cell, w) : grid.template open_neighbour<o>(cell, w);
        if constexpr (kernel == Kernel::ab_stream_collide)
          g[q] = !walled || from >= 0 ? load(from, q) : load(cell, o);
        else
          g[q] = !walled || from >= 0 ? load(from, o) : load(cell, q);
      }
    });
    relax(g, type, cell);
    // The odd step stores to the slots it loaded from. Left to itself the compiler keeps their
    // 18 indices in registers across the collision (ptxas, open fp16 step, unbounded: 61
    // registers, 44 without them); an index it cannot tell from `cell` makes it recompute
    // them (docs/lbm.md).
    const int out = kernel == Kernel::aa_stream_collide_stream ? opaque_copy(cell, g[0]) : cell;
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      if constexpr (kernel == Kernel::ab_stream_collide) {
        store(cell, q, g[q]);
      } else if constexpr (kernel == Kernel::aa_collide) {
        store(cell, o, g[q]);
      } else {
        const int to = walled ? grid.template neighbour<q>(out, w) : grid.template open_neighbour<q>(out, w);
        if (!walled || to >= 0)
          store(to, q, g[q]);
        else
          store(out, o, g[q]);
      }
    });
  }

  // `cell` again (cell < INT_MAX - 1), as a value that depends on whether `value` is NaN.
  KOKKOS_FORCEINLINE_FUNCTION static int opaque_copy(const int cell, const Real value) {
    const int bound = INT_MAX - static_cast<int>(value != value);
    return cell < bound ? cell : bound;
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

// The two passes of a step split by walls (see Solver::split_by_walls): the cells without
// walls, then the groups with walls (thread i: cell i of them, so a warp takes one group).
template <class Cells>
struct OpenCells {
  Cells cells;
  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const { cells.step_open(cell); }
};
template <class Cells>
struct WalledCells {
  Cells cells;
  int begin, end;  // the run of cells stepped: the walled groups' cells outside it are not
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    const int cell = walled_group_cell<typename Cells::execution_space>(cells.grid, i);
    if (cell >= begin && cell < end) cells.step_walled(cell);
  }
};

// The A-A even step in plain storage for two neighbouring cells per thread, reading and
// writing both cells' populations of a direction as one word: a thread per cell moves 2
// bytes per fp16 load and store, half of fp32's, and keeps half as many in flight. Needs
// even columns, so that the words are aligned (Solver::paired_even_step). A pair with a
// solid cell takes the per-cell step.
template <class Cells>
struct PairedCollide {
  using Storage = typename Cells::storage_type;
  using Real = typename Cells::Real;
  struct alignas(2 * sizeof(Storage)) Pair {
    Storage low, high;
  };
  Cells cells;
  int count;  // the cell after the last stepped (the lattice's cell count for all of it)

  KOKKOS_INLINE_FUNCTION void operator()(const int pair) const {
    const int cell = 2 * pair;
    const std::uint8_t low_type = cells.grid.type(cell);
    const std::uint8_t high_type = cell + 1 < count ? cells.grid.type(cell + 1) : solid_flag;
    if (low_type == solid_flag || high_type == solid_flag) {
      for (int c = cell; c < cell + 2 && c < count; ++c) cells(c);
      return;
    }
    // The low halves are collided and put back before the high ones are read out, so that
    // the pair's 38 populations never sit in 38 registers.
    Pair p[D3Q19::size];
    Real g[D3Q19::size];
    for (int q = 0; q < D3Q19::size; ++q) p[q] = word(cell, q);
    for (int q = 0; q < D3Q19::size; ++q) g[q] = static_cast<Real>(p[q].low);
    cells.relax(g, low_type, cell);
    for (int q = 0; q < D3Q19::size; ++q) p[q].low = static_cast<Storage>(g[q]);
    for (int q = 0; q < D3Q19::size; ++q) g[q] = static_cast<Real>(p[q].high);
    cells.relax(g, high_type, cell + 1);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      p[q].high = static_cast<Storage>(g[q]);
      word(cell, D3Q19::opposite(q)) = p[q];  // stored swapped, as StreamCollide's even step
    });
  }

  KOKKOS_FORCEINLINE_FUNCTION Pair& word(int cell, int q) const {
    return *reinterpret_cast<Pair*>(&cells.source(cell, q));
  }
};

// A step kernel on the cells of a box: per cell, or per row.
template <class Cells>
struct BoxCells {
  Cells cells;
  CellBox box;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { cells(box.cell(i, cells.grid.nx, cells.grid.ny)); }
};

}  // namespace pk::lbm::Details
