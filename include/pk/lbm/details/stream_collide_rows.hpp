#pragma once
// The step kernels of the rows traversal, a thread per x-row (CPUs).
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

namespace pk::lbm::Details {

// One time step on every non-solid cell of an x-row (row = y + ny * z), for CPU threads.
// Per cell, the gathers, the collision and the scatters depend on the cell's links, so the
// compiler cannot turn a loop over cells into SIMD code. But in a run of consecutive plain
// cells (fluid, no wall link, not on a periodic face) every population comes from and goes
// to consecutive addresses: such runs are loaded, collided and stored by loops across the
// run, which vectorise. Other cells take the per-cell kernel. The run is read whole before
// anything is written, which keeps A-A's in-place update correct.
template <class ExecutionSpace, class Storage, Kernel kernel>
struct StreamCollideRows {
  static constexpr int lanes = Launch<ExecutionSpace>::simd_lanes;  // cells per run
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

template <class Rows>
struct BoxRows {
  Rows rows;
  CellBox box;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    rows.update_row(box.row(k, rows.cells.grid.ny), box.x0, box.x1);
  }
};

}  // namespace pk::lbm::Details
