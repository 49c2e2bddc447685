#pragma once
// What the GPU team kernels (staged_tiles.hpp, register_tiles.hpp) share: a team filters a
// tile of lines with one thread per piece of each line (TeamSweeps), and how many lines a
// tile holds.
#include <pk/rfilter/details/team_sweeps.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// A team holds a tile of the most lines (a power of two, at most max_tile_lines) whose pieces
// need at most max_team_threads threads. Registers are capped (GpuTeams) so that several
// teams share an SM: a team's barriers hold its warps in one phase, and another team's loads
// fill the time one team spends sweeping. Larger tiles ran faster (docs/rfilter.md).
constexpr int max_tile_lines = 16;
constexpr int max_team_threads = 256;
// Doubles in one row of a GPU's shared-memory banks (32 banks of 4 bytes).
constexpr int bank_row = 16;

template <class Space>
using ScratchView = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
// Pieces of 16 entries (TeamSweeps' default): shorter pieces under a tighter register cap
// ran slower (docs/rfilter.md).
template <class Space>
using SpaceSweeps = TeamSweeps<typename Kokkos::TeamPolicy<Space>::member_type, ScratchView<Space>>;
// GPU teams of up to max_team_threads threads, MinTeams of which fit an SM: at most
// 65536 / (max_team_threads * MinTeams) registers per thread.
template <class Space, int MinTeams>
using GpuTeams = Kokkos::TeamPolicy<Space, Kokkos::LaunchBounds<max_team_threads, MinTeams>>;

// Row of a staged GPU tile of `tile` lines (a power of two up to bank_row): room for n
// entries and a gap after each piece, rounded up to bank_row / tile modulo bank_row.
inline int staged_row(int n, int pieces, int tile) {
  const int used = n + pieces, wanted = bank_row / tile % bank_row;
  return used + ((wanted - used % bank_row) % bank_row + bank_row) % bank_row;
}

// Lines per GPU team for lines of length n along an axis, 0 when they do not fit
// (filter_lines_in_place): a thread per piece of each line and, for a staged tile, scratch memory.
template <class Space>
int tile_lines(const Space& space, int n, bool axis_is_contiguous) {
  const long budget = Kokkos::TeamPolicy<Space>(space, 1, 1).scratch_size_max(0);
  const long word = sizeof(double), alignment_slack = 3 * 64;  // shmem_size pads each scratch view
  const int pieces = SpaceSweeps<Space>::pieces(n);
  if (pieces > max_team_threads) return 0;
  // Per line its pieces' ends (two buffers) and, staged, a row (staged_row) of the tile.
  const long per_line = (2 * pieces + (axis_is_contiguous ? n + pieces + bank_row : 0)) * word;
  const long fits = (budget - alignment_slack) / per_line;
  int tile = 1;
  while (2 * tile <= max_tile_lines && 2 * tile * pieces <= max_team_threads && 2 * tile <= fits) tile *= 2;
  return tile <= fits ? tile : 0;
}

}  // namespace pk::rfilter::Details
