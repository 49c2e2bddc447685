#pragma once
// What the GPU team kernels (staged_tiles.hpp, register_tiles.hpp) share: a team filters a
// tile of lines with one thread per piece of each line (TeamSweeps), and how many lines fit.
#include <pk/rfilter/details/launch_parameters.hpp>
#include <pk/rfilter/details/team_sweeps.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

template <class ExecutionSpace>
using ScratchView = Kokkos::View<double*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
// Pieces of 16 entries (TeamSweeps' default): shorter pieces under a tighter register cap
// ran slower (docs/rfilter.md).
template <class ExecutionSpace>
using SpaceSweeps = TeamSweeps<typename Kokkos::TeamPolicy<ExecutionSpace>::member_type>;
// Row of a staged GPU tile of `tile` lines (a power of two): room for n entries and a gap
// after each piece, rounded up to bank_row / tile modulo bank_row.
template <class ExecutionSpace, class Facts = Tuning<ExecutionSpace>>
int staged_row(int n, int pieces, int tile) {
  constexpr int bank = bank_row<ExecutionSpace, Facts>;
  const int used = n + pieces, wanted = bank / tile % bank;
  return used + ((wanted - used % bank) % bank + bank) % bank;
}

// The most lines (a power of two, at most max_tile_lines) a GPU team can hold for lines of
// length n along an axis, 0 when one line does not fit: a thread per piece of each line and,
// for a staged tile, scratch memory, of which a team may have scratch_bytes.
template <class ExecutionSpace, class Facts = Tuning<ExecutionSpace>>
int tile_lines_within(long scratch_bytes, int n, bool axis_is_contiguous) {
  const long word = sizeof(double), alignment_slack = 3 * 64;  // shmem_size pads each scratch view
  const int pieces = SpaceSweeps<ExecutionSpace>::pieces(n);
  if (pieces > max_team_threads) return 0;
  // Per line its pieces' ends (two buffers) and, staged, a row (staged_row) of the tile.
  const long per_line = (2 * SpaceSweeps<ExecutionSpace>::ends_row(n) +
                         (axis_is_contiguous ? n + pieces + bank_row<ExecutionSpace, Facts> : 0)) *
                        word;
  const long fits = (scratch_bytes - alignment_slack) / per_line;
  int tile = 1;
  while (2 * tile <= max_tile_lines && 2 * tile * pieces <= max_team_threads && 2 * tile <= fits) tile *= 2;
  return tile <= fits ? tile : 0;
}

// The same for a team on `space`, within the level-0 scratch Kokkos gives a team there.
template <class ExecutionSpace>
int largest_tile_lines(const ExecutionSpace& space, int n, bool axis_is_contiguous) {
  return tile_lines_within<ExecutionSpace>(Kokkos::TeamPolicy<ExecutionSpace>(space, 1, 1).scratch_size_max(0), n,
                                           axis_is_contiguous);
}

}  // namespace pk::rfilter::Details
