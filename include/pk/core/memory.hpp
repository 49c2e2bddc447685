#pragma once
// How much memory a run may fill on an execution space, so that drivers can refuse a
// problem that does not fit instead of failing part way.
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

namespace pk {

// The bytes this process may still allocate on the host: the least of the physical memory
// available (/proc/meminfo MemAvailable), the address-space limit (RLIMIT_AS, ulimit -v)
// less what the process maps, and the memory cgroup's limit less its usage (a batch
// system's or a container's, cgroup v2 or v1).
double host_available_bytes();

// Host spaces: host_available_bytes(). Other spaces: Kokkos has no public free-memory
// query, so the largest single allocation that succeeds is found by bisection (allocate,
// release) - portable to any backend.
template <class ExecutionSpace>
double available_bytes(const ExecutionSpace& space) {
  if constexpr (Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible) {
    return host_available_bytes();
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

// What to lower when a run does not fit, given the bytes it may use (90 % of those
// available): "about N cells fit: use a smaller --grid" (empty: nothing to add).
using MemoryAdvice = std::function<std::string(double available_bytes)>;

// Refuses a run before it allocates when `bytes` would not fit in 90 % of what is available
// on `space` (the rest for Kokkos, the runtime and what the estimate leaves out): pk::Error
// "<space>: <what> needs about X GB, more than the Y GB it may use (90 % of Z GB available):
// <advice>".
template <class ExecutionSpace>
void require_memory(const ExecutionSpace& space, double bytes, const std::string& what,
                    const MemoryAdvice& advice = {}) {
  const double available = available_bytes(space), usable = 0.9 * available;
  if (bytes < usable) return;
  char sizes[128];
  std::snprintf(sizes, sizeof sizes,
                " needs about %.4g GB, more than the %.4g GB it may use (90 %% of %.4g GB available)", bytes / 1e9,
                usable / 1e9, available / 1e9);
  throw Error(std::string(SpaceTraits<ExecutionSpace>::name) + ": " + what + sizes +
              (advice ? ": " + advice(usable) : ""));
}

// A run that outgrew the memory part way, as a refusal (one line, status 2) that names the
// allocation that failed.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

// Whether `e` reports a failed allocation: pk::OutOfMemory, Kokkos 4's std::runtime_error
// "Kokkos ERROR: ... memory space failed to allocate ...", or std::bad_alloc (Kokkos 3, the
// standard library).
bool is_allocation_failure(const std::exception& e);

// Runs body() and returns what it returns; when an allocation in it fails (after what it
// allocated has been freed), throws pk::OutOfMemory "<space>: <what> ran out of memory (<the
// allocation>): <advice>", a refusal like require_memory's, instead of the internal error
// it would otherwise end in.
template <class ExecutionSpace, class Body>
decltype(auto) refuse_if_out_of_memory(const ExecutionSpace& space, const std::string& what, const MemoryAdvice& advice,
                                       Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (!is_allocation_failure(e)) throw;
    throw OutOfMemory(std::string(SpaceTraits<ExecutionSpace>::name) + ": " + what + " ran out of memory (" + e.what() +
                      ")" + (advice ? ": " + advice(0.9 * available_bytes(space)) : ""));
  }
}

}  // namespace pk
