#pragma once
// The A-A even step (collide in place) on shifted storage, a team per chunk of an x-row:
// the GPU kernel of the cells traversal.
//
// In shifted storage (Details::slot) direction q of the cell at x sits at x - c_x(q), so a
// thread per cell would read and write 10 of its 19 directions one element off the warp's
// 128-byte lines. Here thread k of a team loads and stores the slots at x0 + k of every
// direction, whole lines; a slot with c_x = 0 is thread k's own, the others pass through
// scratch to the cell they belong to, k + c_x. The two cells at the chunk's ends reach one
// slot each per direction beyond it, straight in memory.
//
// Every slot belongs to one cell, and a team loads and stores only its own cells' slots,
// so chunks may run in any order.
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace pk::lbm::Details {

// Column of an x-moving direction q in the staging scratch: the x-moving directions before it.
KOKKOS_INLINE_FUNCTION constexpr int moving_column(int q) {
  int column = 0;
  for (int p = 0; p < q; ++p) column += D3Q19::cx(p) != 0;
  return column;
}

template <class ExecutionSpace, class Storage>
struct StagedCollide {
  using Real = arithmetic_t<Storage>;
  static constexpr int max_chunk = Launch<ExecutionSpace>::team_threads;  // cells (threads) per team
  static constexpr int moving = moving_column(D3Q19::size);
  using Cells = StreamCollide<ExecutionSpace, Storage, Kernel::aa_collide, true>;
  // Registers capped as for the A-A odd step in fp32 arithmetic (launch.hpp).
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::IndexType<int>, typename Launch<ExecutionSpace>::Bounds>;
  using Member = typename Policy::member_type;
  // (k, column(p)): slot of x-moving direction p at x0 + k, in arithmetic precision. Sized
  // for the widest chunk whatever the team size, so that every index folds into a constant.
  using Slots = Kokkos::View<Real[max_chunk][moving], Kokkos::LayoutLeft, typename ExecutionSpace::scratch_memory_space,
                             Kokkos::MemoryUnmanaged>;

  Cells cells;
  CellBox box;  // the cells stepped
  int chunk;    // cells per team = team size
  int chunks_per_row;
  std::ptrdiff_t stride;  // elements from one direction to the next in the lattice

  // Runs the step on the cells of `box` on `space`: teams of max_chunk threads, or as many
  // as the space allows.
  static void launch(const char* label, const ExecutionSpace& space, const Cells& cells, const CellBox& box) {
    const StagedCollide widest{cells, box, max_chunk, 1, 0};
    const int size = std::min(max_chunk, policy(space, box.rows(), 1).team_size_max(widest, Kokkos::ParallelForTag()));
    const StagedCollide step{cells, box, size, (box.x1 - box.x0 + size - 1) / size,
                             static_cast<std::ptrdiff_t>(cells.source.stride_1())};
    Kokkos::parallel_for(label, policy(space, box.rows() * step.chunks_per_row, size), step);
  }

  static Policy policy(const ExecutionSpace& space, const int teams, const int team_size) {
    return Policy(space, teams, team_size).set_scratch_size(0, Kokkos::PerTeam(Slots::shmem_size()));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int k_row = team.league_rank() / chunks_per_row;
    const int x0 = box.x0 + (team.league_rank() - k_row * chunks_per_row) * chunk;
    const int first = box.row(k_row, cells.grid.ny) * cells.grid.nx + x0;  // cell at x0
    const int count = box.x1 - x0 < chunk ? box.x1 - x0 : chunk;
    const Slots slots(team.team_scratch(0));
    const int k = team.team_rank();
    const bool active = k < count;

    std::uint8_t type = solid_flag;
    Real own[D3Q19::size];  // the slots at x0 + k
    if (active) {
      type = cells.grid.type(first + k);
      for_each_direction([&](auto pc) {
        constexpr int p = decltype(pc)::value;
        if (in_chunk<p>(k, count)) own[p] = static_cast<Real>(memory<p>(first, k));
      });
      for_each_direction([&](auto pc) {
        constexpr int p = decltype(pc)::value;
        if constexpr (D3Q19::cx(p) != 0)
          if (in_chunk<p>(k, count)) slots(k, moving_column(p)) = own[p];
      });
    }
    team.team_barrier();
    if (type != solid_flag) {  // cell x0 + k: its direction q is at k - c_x(q)
      Real g[D3Q19::size];
      for_each_direction([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        if constexpr (D3Q19::cx(q) == 0) {
          g[q] = own[q];
        } else {
          const int at = k - D3Q19::cx(q);
          g[q] = at >= 0 && at < count ? slots(at, moving_column(q)) : static_cast<Real>(memory<q>(first, at));
        }
      });
      cells.relax(g, type, first + k);
      for_each_direction([&](auto qc) {
        constexpr int q = decltype(qc)::value;
        constexpr int o = D3Q19::opposite(q);  // swapped: f*_q goes to direction o's slot
        if constexpr (D3Q19::cx(o) == 0) {
          memory<o>(first, k) = static_cast<Storage>(g[q]);
        } else {
          const int at = k - D3Q19::cx(o);
          if (at >= 0 && at < count)
            slots(at, moving_column(o)) = g[q];
          else
            memory<o>(first, at) = static_cast<Storage>(g[q]);
        }
      });
    }
    team.team_barrier();
    if (active)
      for_each_direction([&](auto pc) {
        constexpr int p = decltype(pc)::value;
        if constexpr (D3Q19::cx(p) != 0)
          if (in_chunk<p>(k, count)) memory<p>(first, k) = static_cast<Storage>(slots(k, moving_column(p)));
      });
  }

  // Whether the slot at x0 + k of direction p belongs to a cell of the chunk: x0 + k + c_x(p).
  // The others belong to a neighbouring chunk's end cell, which may be writing them.
  template <int p>
  KOKKOS_INLINE_FUNCTION static bool in_chunk(const int k, const int count) {
    return k + D3Q19::cx(p) >= 0 && k + D3Q19::cx(p) < count;
  }

  // The slot at x0 + k of direction p, from the direction's first element: a base the warp
  // shares plus a 32-bit offset (the View's (cell, q) indexing redid the 64-bit arithmetic
  // for every access).
  template <int p>
  KOKKOS_INLINE_FUNCTION Storage& memory(const int first, const int k) const {
    return (cells.source.data() + p * stride)[first + k + margin];
  }
};

}  // namespace pk::lbm::Details
