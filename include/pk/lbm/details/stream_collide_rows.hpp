#pragma once
// The step kernels of the rows traversal, a thread per x-row (CPUs).
#include <pk/core/binary16.hpp>
#include <pk/core/compact16.hpp>
#include <pk/core/prefetch.hpp>
#include <pk/core/streaming_stores.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace pk::lbm::Details {

// One time step on every non-solid cell of an x-row (row = y + ny * z), for CPU
// threads. Per cell, the gathers, the collision and the scatters depend on the
// cell's links, so the compiler cannot turn a loop over cells into SIMD code.
// But in a run of consecutive plain cells (fluid, no wall link) every population
// comes from and goes to consecutive addresses, but for a wrap across a periodic
// x face at the row's ends: such runs are loaded, collided and stored by loops
// across the run, which vectorise. Other cells take the per-cell kernel. The run
// is read whole before anything is written, which keeps A-A's in-place update
// correct.
//
// Runs end at multiples of `lanes` cells, so full runs load and store whole
// SIMD registers at aligned addresses (where the direction has no x offset).
// Every run computes its cells in loops of a fixed count (`lanes`, or a register's
// `simd_lanes` for each part of a longer run), which compile to straight SIMD code
// (loops of the run's count became library copies, memmove, and remainder loops).
// A shorter run is staged: each direction's lanes move as one masked block (fp16
// through a buffer converted as a whole); a run at a periodic x face stages the
// directions that cross it, whose wrapped end cells move one by one.
template <class ExecutionSpace, class Storage, Kernel kernel>
struct StreamCollideRows {
  using Real = arithmetic_t<Storage>;
  // Cells per run: a SIMD register of the arithmetic the collision computes in (fp32 lanes,
  // or fp64 for fp64 storage: two registers of doubles per direction spilled); for A-B at
  // least a cache line of each direction, which streaming stores write whole.
  static constexpr int simd_lanes = Launch<ExecutionSpace>::template simd_lanes_of<Real>;
  static constexpr int line_cells = 64 / static_cast<int>(sizeof(Storage));
  static constexpr int lanes = kernel == Kernel::ab_stream_collide && line_cells > simd_lanes ? line_cells : simd_lanes;
  using Cells = StreamCollide<ExecutionSpace, Storage, kernel, false>;  // plain storage
  using G = Grid<typename ExecutionSpace::memory_space>;
  Cells cells;
  // A-B: full runs store the target lattice around the caches (pk::convert_streaming).
  bool streaming_stores = false;
  // Bytes ahead of each run at which its directions' lines are asked for (pk::prefetch_ahead),
  // 0 for none: a thread walks 19 to 38 streams, more than a core's prefetchers may follow.
  int prefetch_bytes = 0;

  // Walls-word bits that keep a cell out of runs: its wall links. Periodic
  // faces do not: every cell of a row shares the y and z ones, so the run's
  // first cell gives the offsets of all, and a wrap in x is a run's first or
  // last cell (runs start at the row's first cell and end at its last).
  static constexpr std::uint32_t not_in_runs = (1u << D3Q19::size) - 2u;

  // Where a run's first and last cells reach across a periodic x face.
  struct Ends {
    int count;       // cells in the run
    bool low, high;  // first cell at x = 0, last at x = nx - 1, on a lattice periodic in x
    // Whether a run (or part of one) updated `n` cells at a time takes the staged code: it is
    // shorter, or reaches across a periodic x face.
    KOKKOS_INLINE_FUNCTION bool staged(int n) const { return count < n || low || high; }
  };

  // Where a run loads and stores each direction: its column's start moved by the direction's
  // offset, plus the run's first cell. The offsets depend on the walls word's periodic y and z
  // faces, which every run of a row shares (x wraps are the ends'), so they are found and
  // added once for the row's first run, not for every run. A moved start stays inside the
  // lattice's allocation: only the rest population's column, the first, has no cells before
  // it, and its offset is 0.
  struct Streams {
    std::uint32_t w = ~0u;  // the walls word they were found for (none yet)
    const Storage* from[D3Q19::size];
    Storage* to[D3Q19::size];
  };

  KOKKOS_INLINE_FUNCTION void operator()(const int row) const { update_row(row, 0, cells.grid.nx); }

  // The cells x0 .. x1 - 1 of a row.
  KOKKOS_INLINE_FUNCTION void update_row(const int row, const int x0, const int x1) const {
    const G& grid = cells.grid;
    const int start = row * grid.nx, end = start + x1;
    // A row's two cells on periodic x faces, which the runs of every step but A-A's even one
    // reach across. Their walls words lie a line apart, missed each time: the next row's (a
    // thread's rows are consecutive) are asked for now.
    const bool faces = kernel != Kernel::aa_collide && grid.periodic_x;
    if (faces) {
      const long row_bytes = static_cast<long>(grid.nx) * sizeof(std::uint32_t);
      prefetch_ahead<false, 4>(grid.walls.data() + start, row_bytes);
      prefetch_ahead<false, 4>(grid.walls.data() + start + grid.nx - 1, row_bytes);
    }
    Streams streams;
    for (int cell = start + x0; cell < end;) {
      const int next_boundary = (cell / lanes + 1) * lanes;
      const int limit = end < next_boundary ? end : next_boundary;
      int run = 0;
      if (limit - cell == lanes && plain_run(cell))
        run = lanes;
      else
        while (cell + run < limit && plain(cell + run)) ++run;
      if (run == 0) {
        cells(cell);
        ++cell;
        continue;
      }
      const Ends ends{run, faces && cell == start, faces && cell + run == start + grid.nx};
      if (ends.staged(lanes))
        update_run<true>(cell, ends, streams);
      else
        update_run<false>(cell, ends, streams);
      cell += run;
    }
    if (kernel == Kernel::ab_stream_collide && streaming_stores) streaming_fence();
  }

  // Whether the `lanes` cells from `cell` are all plain(), most often: a run's inner cells are
  // plain fluid cells without a walls word, found by one comparison across their type bytes
  // (which vectorises) instead of a test and a branch a cell; its first and last cells may
  // lie on a periodic x face, whose walls word plain() reads. Runs on periodic y or z faces
  // (every cell with a walls word) are found cell by cell.
  KOKKOS_INLINE_FUNCTION bool plain_run(int cell) const {
    const std::uint8_t* raw = cells.grid.cell_type.data() + cell;
    int fluid = 0;
    for (int l = 0; l < lanes; ++l) fluid += raw[l] == fluid_flag;
    if (fluid == lanes) return true;
    fluid -= (raw[0] == fluid_flag) + (raw[lanes - 1] == fluid_flag);
    return fluid == lanes - 2 && plain(cell) && plain(cell + lanes - 1);
  }

  KOKKOS_INLINE_FUNCTION bool plain(int cell) const {
    // the even step reads no links; the others need a walls word without
    // not_in_runs bits
    if constexpr (kernel == Kernel::aa_collide) return cells.grid.type(cell) == fluid_flag;
    const std::uint8_t raw = cells.grid.cell_type(cell);
    return raw == fluid_flag || (G::type_of(raw) == fluid_flag && (cells.grid.walls(cell) & not_in_runs) == 0u);
  }

  // The per-cell kernel's accesses for the plain cells of a run from `first`.
  // A staged run computes all lanes, those past its end on zeros.
  template <bool staged>
  KOKKOS_INLINE_FUNCTION void update_run(const int first, const Ends& ends, Streams& streams) const {
    const G& grid = cells.grid;
    // the row's periodic y and z faces; x wraps are the ends' (see Ends)
    const std::uint32_t w =
        kernel == Kernel::aa_collide ? 0u : grid.walls_of(first, grid.cell_type(first)) & ~G::open_faces;
    if (kernel != Kernel::aa_collide && w != streams.w) aim(streams, w);
    // A run longer than a register (A-B on 16-bit storage: a cache line) is updated a
    // register of cells at a time, whose 19 registers of populations can stay in registers
    // from their loads to their stores; of a staged run, only a short part or one at a
    // periodic x face is staged. Streaming stores write whole lines: the whole run.
    if constexpr (simd_lanes < lanes) {
      if (!streaming_stores) {
        for (int h = 0; h < ends.count; h += simd_lanes) {
          const int count = ends.count - h < simd_lanes ? ends.count - h : simd_lanes;
          const Ends part{count, ends.low && h == 0, ends.high && h + count == ends.count};
          if (staged && part.staged(simd_lanes))
            update_cells<simd_lanes, true>(first + h, part, streams);
          else
            update_cells<simd_lanes, false>(first + h, part, streams);
        }
        return;
      }
    }
    update_cells<lanes, staged>(first, ends, streams);
  }

  // update_run() on `n` lanes: the run from `first`, or a part of it.
  template <int n, bool staged>
  KOKKOS_INLINE_FUNCTION void update_cells(const int first, const Ends& ends, const Streams& streams) const {
    Real g[D3Q19::size][n];
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const Storage* from = kernel == Kernel::aa_collide ? &cells.source(first, q) : streams.from[q] + first;
      // A-A steps store into the lines they load: those are fetched to be written.
      if (prefetch_bytes > 0)
        prefetch_ahead<kernel != Kernel::ab_stream_collide, n * sizeof(Storage)>(from, prefetch_bytes);
      load<kernel == Kernel::aa_collide ? 0 : D3Q19::cx(D3Q19::opposite(q)), staged>(from, g[q], ends);
    });
    for (int l = 0; l < n; ++l) {
      Real cell[D3Q19::size];
      for_each_direction([&](auto qc) { cell[decltype(qc)::value] = g[decltype(qc)::value][l]; });
      collide_bgk_paired(cell, cells.omega);
      for_each_direction([&](auto qc) { g[decltype(qc)::value][l] = cell[decltype(qc)::value]; });
    }
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      Storage* to = kernel == Kernel::aa_collide ? &cells.target(first, D3Q19::opposite(q)) : streams.to[q] + first;
      store<kernel == Kernel::aa_stream_collide_stream ? D3Q19::cx(q) : 0, staged>(g[q], to, ends);
    });
  }

  // Every direction's moved column starts for runs whose walls word is w (Streams).
  KOKKOS_INLINE_FUNCTION void aim(Streams& streams, const std::uint32_t w) const {
    const G& grid = cells.grid;
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      constexpr int o = D3Q19::opposite(q);
      streams.from[q] =
          &cells.source(0, kernel == Kernel::ab_stream_collide ? q : o) + grid.template neighbour<o>(0, w);
      streams.to[q] =
          &cells.target(0, q) + (kernel == Kernel::ab_stream_collide ? 0 : grid.template neighbour<q>(0, w));
    });
    streams.w = w;
  }

  // The run's elements of one direction in the lattice, from `memory` (the run's first cell
  // plus dx), into the lanes and back. Staged, lanes past the run's end are zero, and an
  // end cell whose element lies across a periodic x face reaches it nx elements away. fp16
  // passes through a buffer, converted as a whole, but for a full A-B part (below).
  template <int dx, bool staged, int n>
  KOKKOS_INLINE_FUNCTION void load(const Storage* memory, Real (&values)[n], const Ends& ends) const {
    static_assert(D3Q19::cx(0) == 0 && D3Q19::cx(D3Q19::size - 1) == 0, "full fp16 A-B parts read beside their row");
    if (!staged || whole<dx, n>(ends)) {
      convert<n>(memory, values);
    } else if (kernel == Kernel::ab_stream_collide && sizeof(Storage) == 2 && ends.count == n) {
      // A full A-B part of 16-bit storage loads whole, not through the staging buffer: the
      // element its end lane reads instead of the wrapped one lies in the row before or after,
      // in the source lattice's column of an x-moving direction (neither the first column nor
      // the last), which no thread writes in the step.
      convert<n>(memory, values);
      join_wrapped<dx>(memory, values, ends);
    } else {
      if constexpr (std::is_same_v<Storage, Real>) {
        gather<dx>(memory, values, ends);
      } else {
        Storage staging[n];
        gather<dx>(memory, staging, ends);
        convert<n>(staging, values);
      }
      join_wrapped<dx>(memory, values, ends);
    }
  }
  template <int dx, bool staged, int n>
  KOKKOS_INLINE_FUNCTION void store(const Real (&values)[n], Storage* memory, const Ends& ends) const {
    if (!staged || whole<dx, n>(ends)) {
      if constexpr (kernel == Kernel::ab_stream_collide && n == lanes)
        if (streaming_stores) return convert_streaming<n>(values, memory);
      convert<n>(values, memory);
    } else if constexpr (std::is_same_v<Storage, Real>) {
      scatter<dx>(values, memory, ends);
    } else {
      Storage staging[n];
      convert<n>(values, staging);
      scatter<dx>(staging, memory, ends);
    }
  }

  // The lanes [begin, end) of a staged run move as a block (a masked loop: masked SIMD
  // moves). Its wrapped end cells are stored one by one (scatter); loaded, they join the
  // converted lanes in a loop of selects across all lanes (join_wrapped): written into the
  // lanes alone, they had left the next whole-register load of the lanes waiting on stores
  // it could not be forwarded from.
  template <int dx, int n>
  KOKKOS_INLINE_FUNCTION void gather(const Storage* memory, Storage (&lane)[n], const Ends& ends) const {
    const Block b = block<dx>(ends);
    for (int l = 0; l < n; ++l) lane[l] = l >= b.begin && l < b.end ? copy(memory[l]) : Storage{};
  }
  template <int dx, int n>
  KOKKOS_INLINE_FUNCTION void join_wrapped(const Storage* memory, Real (&lane)[n], const Ends& ends) const {
    const Block b = block<dx>(ends);
    const int low = b.begin - 1, high = b.end < ends.count ? b.end : n;  // -1, n: none
    if (low < 0 && high == n) return;
    const Real low_value = low < 0 ? Real(0) : static_cast<Real>(memory[cells.grid.nx]);
    const Real high_value = high == n ? Real(0) : static_cast<Real>(memory[b.end - cells.grid.nx]);
    for (int l = 0; l < n; ++l) lane[l] = l == low ? low_value : l == high ? high_value : lane[l];
  }
  template <int dx, int n>
  KOKKOS_INLINE_FUNCTION void scatter(const Storage (&lane)[n], Storage* memory, const Ends& ends) const {
    const Block b = block<dx>(ends);
    for (int l = 0; l < n; ++l)
      if (l >= b.begin && l < b.end) memory[l] = copy(lane[l]);
    if (b.begin > 0) memory[cells.grid.nx] = lane[0];
    if (b.end < ends.count) memory[b.end - cells.grid.nx] = lane[b.end];
  }
  // The lanes whose element of a direction with x offset dx lies in the block: all of the
  // run's but a first cell reaching back across x = 0 or a last one reaching past nx - 1.
  struct Block {
    int begin, end;
  };
  template <int dx>
  KOKKOS_INLINE_FUNCTION static Block block(const Ends& ends) {
    return {dx < 0 && ends.low ? 1 : 0, dx > 0 && ends.high ? ends.count - 1 : ends.count};
  }
  // A full run's direction that wraps at neither end moves as a full run's does: a run at a
  // periodic x face stages only the 5 directions that cross it.
  template <int dx, int n>
  KOKKOS_INLINE_FUNCTION static bool whole(const Ends& ends) {
    const Block b = block<dx>(ends);
    return b.begin == 0 && b.end == n;
  }
  // 16-bit storage is copied by its bits: as a class, its masked loops compiled to a scalar
  // move per element, which left staged fp16 runs at three times a full run's time.
  KOKKOS_INLINE_FUNCTION static Storage copy(const Storage& value) {
    if constexpr (std::is_same_v<Storage, Binary16> || std::is_same_v<Storage, Compact16>)
      return Storage::from_bits(value.bits());
    else
      return value;
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
