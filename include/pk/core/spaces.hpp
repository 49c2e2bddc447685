#pragma once
// The one place that names backends: which execution spaces this build holds, what they
// are called on the command line, and whether each can run on this machine. Everything
// else is templated on the execution space and reaches the backends through this header.
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace pk {

// What a kernel's launch parameters may depend on: the facts of the device behind an
// execution space instance, read at run time (pk::device_facts, core/tuning.hpp).
struct DeviceFacts {
  std::string name;                       // the GPU's or the CPU's model
  int id = 0;                             // the device's ordinal among its backend's devices
  int multiprocessors = 0;                // GPU: SMs; CPU: the space's threads
  long team_scratch_bytes = 0;            // the most level-0 scratch one team may have (0 on CPUs)
  long multiprocessor_scratch_bytes = 0;  // shared memory per SM, for teams resident together
  long registers_per_multiprocessor = 0;
  long cache_bytes = 0;  // GPU: L2
};

template <class... Spaces>
struct SpaceList {};

template <class Space>
struct SpaceTag {
  using type = Space;
};

template <class Space>
struct SpaceTraits;

#ifdef KOKKOS_ENABLE_OPENMP
template <>
struct SpaceTraits<Kokkos::OpenMP> {
  static constexpr const char* name = "openmp";
  // Empty when the space can run here, else why not.
  static std::string unavailable_reason() { return {}; }
  static int device_id(const Kokkos::OpenMP&) { return 0; }  // the host is one device
};
#endif

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct SpaceTraits<Kokkos::Cuda> {
  static constexpr const char* name = "cuda";
  static std::string unavailable_reason() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
      return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
    if (count == 0) return "no CUDA device found";
    return {};
  }
  // Name, multiprocessors and memory of the device the instance runs on.
  static std::string describe(const Kokkos::Cuda& space) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, space.cuda_device()) != cudaSuccess) return "CUDA device (unknown)";
    return std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " SMs, " +
           std::to_string(prop.totalGlobalMem >> 20) + " MiB, cc " + std::to_string(prop.major) + "." +
           std::to_string(prop.minor) + ")";
  }
  static int device_id(const Kokkos::Cuda& space) { return space.cuda_device(); }
  static DeviceFacts facts(const Kokkos::Cuda& space) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, space.cuda_device()) != cudaSuccess) return {"CUDA device (unknown)"};
    return {prop.name,
            space.cuda_device(),
            prop.multiProcessorCount,
            static_cast<long>(prop.sharedMemPerBlockOptin),
            static_cast<long>(prop.sharedMemPerMultiprocessor),
            prop.regsPerMultiprocessor,
            prop.l2CacheSize};
  }
};
#endif

namespace Details {
template <class... A, class... B>
SpaceList<A..., B...> concat(SpaceList<A...>, SpaceList<B...>);
#ifdef KOKKOS_ENABLE_OPENMP
using OpenMPSpaces = SpaceList<Kokkos::OpenMP>;
#else
using OpenMPSpaces = SpaceList<>;
#endif
#ifdef KOKKOS_ENABLE_CUDA
using CudaSpaces = SpaceList<Kokkos::Cuda>;
#else
using CudaSpaces = SpaceList<>;
#endif
}  // namespace Details

// The execution spaces compiled into this build, host first.
using EnabledSpaces = decltype(Details::concat(Details::OpenMPSpaces{}, Details::CudaSpaces{}));

// Whether Space runs on the host's cores (and reaches host memory): the one test kernels
// and benchmarks use to tell a CPU backend from a GPU one.
template <class Space>
inline constexpr bool runs_on_host = Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible;

// Host memory for messages that a device space's data passes through on the way to MPI:
// pinned where the backend has it (Kokkos >= 4), so that copies to and from the device run
// at the bus' rate and asynchronously; plain host memory for host spaces.
#if KOKKOS_VERSION >= 40000
template <class Space>
using StagingSpace = std::conditional_t<runs_on_host<Space>, Kokkos::HostSpace, Kokkos::SharedHostPinnedSpace>;
#else
template <class Space>
using StagingSpace = Kokkos::HostSpace;
#endif

// A second instance of a device space (its own stream), for copies that overlap the
// kernels queued on `space`; `space` itself on host spaces and before Kokkos 4, where work
// on the two then runs in turn.
template <class Space>
Space independent_instance(const Space& space) {
#if KOKKOS_VERSION >= 40000
  if constexpr (!runs_on_host<Space>) return Kokkos::Experimental::partition_space(space, 1)[0];
#endif
  return space;
}

// GPUs this machine offers the build's device backend (0 in a host-only build).
inline int device_count() {
#ifdef KOKKOS_ENABLE_CUDA
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#else
  return 0;
#endif
}

}  // namespace pk
