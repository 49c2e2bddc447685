#pragma once
// Backend facts: what every device of a backend, as this build targets it, shares. Kernels
// read them through pk::Tuning (core/tuning.hpp); each SpaceTraits (spaces.hpp) holds one set, so a
// backend without them does not compile. They are plain types, so that tests check every
// backend's launch choices on any build (tests/tstTuning.cpp).
namespace pk::Details {

struct CpuFacts {
  // SIMD lanes are the compiler's: no threads run in lockstep, scratch has no banks, and
  // launch bounds do not apply.
  static constexpr int lockstep_threads = 1;
  static constexpr int scratch_bank_bytes = 0;
  static constexpr int registers_per_multiprocessor = 0;
  static constexpr int launch_bounds_blocks(int /*team_threads*/, int teams) { return teams; }
};

// NVIDIA GPUs, every architecture since Maxwell.
struct NvidiaFacts {
  static constexpr int lockstep_threads = 32;                 // a warp
  static constexpr int scratch_bank_bytes = 32 * 4;           // shared memory: 32 banks, 4 bytes wide
  static constexpr int registers_per_multiprocessor = 65536;  // 32-bit registers per SM
  // __launch_bounds__'s second argument is the blocks (teams) resident per SM.
  static constexpr int launch_bounds_blocks(int /*team_threads*/, int teams) { return teams; }
};

// AMD CDNA 2 and 3 GPUs (gfx90a: MI210, MI250X; gfx940/gfx942: MI300), from AMD's ISA guides.
struct CdnaFacts {
  static constexpr int lockstep_threads = 64;        // a wavefront
  static constexpr int scratch_bank_bytes = 32 * 4;  // LDS: 32 banks, 4 bytes wide
  // A CU has 4 SIMDs, each with 512 registers (vector and accumulation, one file) of 64 lanes.
  static constexpr int simds_per_multiprocessor = 4;
  static constexpr int registers_per_multiprocessor = simds_per_multiprocessor * 512 * 64;
  // HIP's __launch_bounds__ takes the wavefronts resident per SIMD (amdgpu_waves_per_eu),
  // not teams per CU: `teams` teams of `team_threads` spread over the CU's SIMDs.
  static constexpr int launch_bounds_blocks(int team_threads, int teams) {
    const int waves = teams * ((team_threads + lockstep_threads - 1) / lockstep_threads);
    return (waves + simds_per_multiprocessor - 1) / simds_per_multiprocessor;
  }
};

}  // namespace pk::Details
