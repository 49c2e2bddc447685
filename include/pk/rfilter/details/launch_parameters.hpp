#pragma once
// The launch parameters of the recursive-filter kernels, in one place, each with its
// reason. Backend facts come from pk::Tuning<ExecutionSpace>; how many lines a GPU team holds is timed
// per device (tile_choice.hpp).
#include <pk/core/tuning.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

// CPU: lines per lockstep tile (host_tiles.hpp). The lines of a tile are the SIMD lanes, and
// each sweep step of a line waits on the step before it (a fused multiply-add, about 4 cycles
// on x86 cores), while every step also stores its entries: four registers of lines give four
// independent chains, about one step per cycle. 32 lines with AVX-512, 16 with AVX2.
template <class ExecutionSpace>
constexpr int host_tile_lines = 4 * Tuning<ExecutionSpace>::simd_bytes / static_cast<int>(sizeof(double));

// CPU: tiles a work item filters in turn. Each tile but its first has its entries asked for
// while the tile before it is filtered (host_tiles.hpp); more tiles an item hide more of
// those waits and leave fewer items to balance across threads.
constexpr int host_tiles_per_item = 8;

// CPU: how far ahead a tile's staging copy asks for the field's entries (pk::prefetch_ahead):
// host_prefetch_rows rows of side-by-side lines, or host_prefetch_bytes along lines that lie
// along the contiguous axis, whose tile takes 8 entries of each of its lines at a time. The
// staging waited on memory (docs/rfilter.md).
constexpr int host_prefetch_rows = 4;
constexpr int host_prefetch_bytes = 512;

// GPU teams (team_tiles.hpp): one thread per piece of a line. Larger tiles keep more loads
// in flight per team and ran faster up to 16 lines (docs/rfilter.md); 256 threads hold 16
// lines of 256 entries and leave room for several teams per SM.
constexpr int max_team_threads = 256;
constexpr int max_tile_lines = 16;
// Teams that share an SM or CU: a team's barriers hold its warps in one phase, so another
// team's loads fill the time one team spends sweeping. The register cap that follows is
// Tuning<ExecutionSpace>::registers_per_multiprocessor / (max_team_threads * teams) per thread, on
// CUDA GPUs: staged tiles, 85 (80 as allocated), so that the copy's 16 entries in flight
// and their places in the tile do not spill; register tiles, 64, enough for a piece of 16
// entries. (CDNA GPUs have twice the registers per CU: twice the cap, never measured.)
constexpr int staged_teams_per_multiprocessor = 3;
constexpr int register_teams_per_multiprocessor = 4;
template <class ExecutionSpace, int TeamsPerMultiprocessor, class Facts = Tuning<ExecutionSpace>>
using GpuTeams = Kokkos::TeamPolicy<ExecutionSpace,
                                    typename Facts::template ResidentTeams<max_team_threads, TeamsPerMultiprocessor>>;

// Doubles in one row of the scratch banks, against which staged tiles are padded (1 where
// scratch has no banks: no padding).
template <class ExecutionSpace, class Facts = Tuning<ExecutionSpace>>
constexpr int bank_row = Facts::scratch_bank_bytes > 0 ? Facts::scratch_bank_bytes / static_cast<int>(sizeof(double))
                                                       : 1;

}  // namespace pk::rfilter::Details
