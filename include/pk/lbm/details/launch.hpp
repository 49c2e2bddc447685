#pragma once
// Launch parameters of the LBM kernels, in one place, from the backend's facts (pk::Tuning).
// They are compile-time constants: LaunchBounds and scratch extents are template arguments.
#include <pk/core/tuning.hpp>

#include <Kokkos_Core.hpp>

#include <utility>

namespace pk::lbm::Details {

template <class ExecutionSpace, class Facts = Tuning<ExecutionSpace>>
struct Launch {
  // Threads per team of the register-bound kernels (the A-A steps in fp32 arithmetic, the
  // staged even step): whole warps or wavefronts (four warps, two wavefronts), each reading
  // whole 128-byte lines of fp32.
  static constexpr int team_threads = 128;
  static_assert(team_threads % Facts::lockstep_threads == 0, "teams of whole warps or wavefronts");
  // Teams resident per multiprocessor that LaunchBounds asks for: with team_threads, the
  // compiler caps each thread at registers_per_thread, enough for the steps without spills.
  static constexpr int teams_per_multiprocessor = 8;
  static constexpr int registers_per_thread =
      Facts::registers_per_multiprocessor / (team_threads * teams_per_multiprocessor);  // CUDA: 64, CDNA: 128
  template <int teams>
  using BoundsFor = typename Facts::template ResidentTeams<team_threads, teams>;
  using Bounds = BoundsFor<teams_per_multiprocessor>;
  // The teams per multiprocessor among which pk::autotune chooses the A-A odd step's on the
  // lattice it steps (StepPlan::choose_odd_step_teams), each a cap of
  // registers_per_multiprocessor / (team_threads * teams) registers (CUDA: 64, 51, 42). More
  // resident threads keep more loads in flight, fewer registers may spill: which wins depends
  // on the GPU and the lattice (docs/lbm.md).
  using odd_step_teams = std::integer_sequence<int, teams_per_multiprocessor, 10, 12>;

  // Cells per run of the rows traversal: one SIMD register of the arithmetic the collision
  // computes in.
  template <class Real>
  static constexpr int simd_lanes_of = Facts::simd_bytes / static_cast<int>(sizeof(Real));
  // The distances ahead, in bytes, among which pk::autotune chooses the rows traversal's
  // software prefetch on the lattice it steps (StepPlan::choose_rows_prefetch), the first the
  // default; 0: none. How far ahead pays depends on the CPU's prefetchers and memory latency
  // (docs/lbm.md).
  using rows_prefetch_bytes = std::integer_sequence<int, 512, 0, 1024>;
};

}  // namespace pk::lbm::Details
