#pragma once
// The step kernels of the cells traversal, a thread per cell (GPUs): A-B pull, and A-A's
// collide in place (even steps) and stream-collide-stream (odd steps). See storage.hpp for
// the layouts they read and leave.
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::lbm::Details {

enum class Kernel { ab_stream_collide, aa_collide, aa_stream_collide_stream };

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

// A step kernel on the cells of a box: per cell, or per row.
template <class Cells>
struct BoxCells {
  Cells cells;
  CellBox box;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const { cells(box.cell(i, cells.grid.nx, cells.grid.ny)); }
};

}  // namespace pk::lbm::Details
