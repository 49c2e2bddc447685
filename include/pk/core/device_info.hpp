#pragma once
// A one-line description of the hardware behind an execution space, for reports.
#include <pk/core/spaces.hpp>

#include <string>
#include <type_traits>

namespace pk {

// The host CPU model, as /proc/cpuinfo names it ("unknown CPU" elsewhere).
std::string host_cpu_model();

template <class Space>
std::string describe_device(const Space& space) {
  if constexpr (runs_on_host<Space>) {
    return host_cpu_model() + " (" + std::to_string(space.concurrency()) + " threads)";
  } else {
    return SpaceTraits<Space>::describe(space);
  }
}

}  // namespace pk
