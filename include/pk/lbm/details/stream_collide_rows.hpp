#pragma once
// The step kernels of the rows traversal, a thread per x-row (CPUs).
#include <pk/core/binary16.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::lbm::Details {

// One time step on every non-solid cell of an x-row (row = y + ny * z), for CPU
// threads. Per cell, the gathers, the collision and the scatters depend on the
// cell's links, so the compiler cannot turn a loop over cells into SIMD code.
// But in a run of consecutive plain cells (fluid, no wall link, not on a
// periodic x face) every population comes from and goes to consecutive
// addresses: such runs are loaded, collided and stored by loops across the run,
// which vectorise. Other cells take the per-cell kernel. The run is read whole
// before anything is written, which keeps A-A's in-place update correct.
//
// Runs end at multiples of `lanes` cells, so full runs load and store whole
// SIMD registers at aligned addresses (where the direction has no x offset).
// Every run computes `lanes` cells in loops of that fixed count, which compile
// to straight SIMD code (loops of the run's count became library copies,
// memmove, and remainder loops); a shorter run masks its loads and stores.
template <class ExecutionSpace, class Storage, Kernel kernel>
struct StreamCollideRows {
  static constexpr int lanes = Launch<ExecutionSpace>::simd_lanes;  // cells per run
  using Real = arithmetic_t<Storage>;
  using Cells = StreamCollide<ExecutionSpace, Storage, kernel, false>;  // plain storage
  using G = Grid<typename ExecutionSpace::memory_space>;
  Cells cells;

  // Walls-word bits that keep a cell out of runs: its wall links, and the
  // periodic x faces (the wrap breaks the consecutive addresses). Periodic y
  // and z faces do not: every cell of a row shares them, so the run's first
  // cell gives the offsets of all.
  static constexpr std::uint32_t not_in_runs =
      ((1u << D3Q19::size) - 2u) | (1u << G::face_bit) | (1u << (G::face_bit + 1));

  KOKKOS_INLINE_FUNCTION void operator()(const int row) const { update_row(row, 0, cells.grid.nx); }

  // The cells x0 .. x1 - 1 of a row.
  KOKKOS_INLINE_FUNCTION void update_row(const int row, const int x0, const int x1) const {
    const int end = row * cells.grid.nx + x1;
    for (int cell = row * cells.grid.nx + x0; cell < end;) {
      const int next_boundary = (cell / lanes + 1) * lanes;
      const int limit = end < next_boundary ? end : next_boundary;
      int run = 0;
      while (cell + run < limit && plain(cell + run)) ++run;
      if (run == 0) {
        cells(cell);
        ++cell;
      } else {
        if (run == lanes)
          update_run<false>(cell, lanes);
        else
          update_run<true>(cell, run);
        cell += run;
      }
    }
  }

  KOKKOS_INLINE_FUNCTION bool plain(int cell) const {
    // the even step reads no links; the others need a walls word without
    // not_in_runs bits
    if constexpr (kernel == Kernel::aa_collide) return cells.grid.type(cell) == fluid_flag;
    const std::uint8_t raw = cells.grid.cell_type(cell);
    return raw == fluid_flag || (G::type_of(raw) == fluid_flag && (cells.grid.walls(cell) & not_in_runs) == 0u);
  }

  // The per-cell kernel's accesses for plain cells `first` .. `first + count -
  // 1`. A partial run (count < lanes) computes all lanes, the others on zeros,
  // and masks its loads and stores.
  template <bool partial>
  KOKKOS_INLINE_FUNCTION void update_run(const int first, const int count) const {
    const G& grid = cells.grid;
    const std::uint32_t w = kernel == Kernel::aa_collide ? 0u : grid.walls_of(first, grid.cell_type(first));
    Real g[D3Q19::size][lanes];
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      const Storage* from = kernel == Kernel::aa_collide ? &cells.source(first, q)
                            : kernel == Kernel::ab_stream_collide
                                ? &cells.source(grid.template neighbour<o>(first, w), q)
                                : &cells.source(grid.template neighbour<o>(first, w), o);
      if constexpr (partial)
        for (int l = 0; l < lanes; ++l) g[q][l] = l < count ? static_cast<Real>(from[l]) : Real(0);
      else
        convert<lanes>(from, g[q]);
    });
    for (int l = 0; l < lanes; ++l) {
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
                                                        : &cells.target(grid.template neighbour<q>(first, w), q);
      if constexpr (partial) {
        for (int l = 0; l < lanes; ++l)
          if (l < count) to[l] = static_cast<Storage>(g[q][l]);
      } else {
        convert<lanes>(g[q], to);
      }
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
