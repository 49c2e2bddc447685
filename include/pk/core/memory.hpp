#pragma once
// How much memory a run may fill on an execution space, so that drivers can refuse a
// problem that does not fit instead of failing part way.
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

namespace pk {

// Host spaces: /proc/meminfo MemAvailable (4 GB, a modest assumption, without it). Other
// spaces: Kokkos has no public free-memory query, so the largest single allocation that
// succeeds is found by bisection (allocate, release) - portable to any backend.
template <class ExecutionSpace>
double available_bytes(const ExecutionSpace& space) {
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (meminfo >> key >> kib >> unit)
      if (key == "MemAvailable:") return kib * 1024;
    return 4e9;
  } else {
    double lo = 0, hi = 4e12;  // bytes: lo fits, hi does not
    for (int i = 0; i < 40 && hi - lo > 64e6; ++i) {
      const double mid = 0.5 * (lo + hi);
      try {
        Kokkos::View<char*, typename ExecutionSpace::memory_space> probe(
            Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::memory_probe"), static_cast<std::size_t>(mid));
        lo = mid;
      } catch (const std::exception&) {  // Kokkos reports a failed allocation as an exception
        hi = mid;
      }
    }
    return lo;
  }
}

// Refuses a run before it allocates when `bytes` would not fit in 90 % of what is available
// on `space` (the rest for Kokkos, the runtime and what the estimate leaves out): pk::Error
// "<space>: <what> needs about X GB, only Y GB available".
template <class ExecutionSpace>
void require_memory(const ExecutionSpace& space, double bytes, const std::string& what) {
  const double available = available_bytes(space);
  if (bytes < 0.9 * available) return;
  char sizes[96];
  std::snprintf(sizes, sizeof sizes, " needs about %.3g GB, only %.3g GB available", bytes / 1e9, available / 1e9);
  throw Error(std::string(SpaceTraits<ExecutionSpace>::name) + ": " + what + sizes);
}

}  // namespace pk
