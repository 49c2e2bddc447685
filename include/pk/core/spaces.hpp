#pragma once
// The one place that names backends: which execution spaces this build holds, what they
// are called on the command line, whether each can run on this machine, and the facts of
// its hardware that kernels' launch parameters depend on. Everything else is templated on
// the execution space and reaches the backends through this header.
#include <pk/core/backend_names.hpp>
#include <pk/core/details/backend_facts.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>
#include <vector>

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef KOKKOS_ENABLE_HIP
#include <hip/hip_runtime_api.h>
#endif

namespace pk {

// What a kernel's launch parameters may depend on: the facts of the device behind an
// execution space instance, read at run time (pk::device_facts, core/tuning.hpp).
struct DeviceFacts {
  std::string name;                       // the GPU's or the CPU's model
  int id = 0;                             // the device's ordinal among its backend's devices
  int multiprocessors = 0;                // GPU: SMs or CUs; CPU: the space's threads
  long team_scratch_bytes = 0;            // the most level-0 scratch one team may have (0 on CPUs)
  long multiprocessor_scratch_bytes = 0;  // shared memory (LDS) per SM or CU, for teams resident together
  long registers_per_multiprocessor = 0;  // as the runtime reports it
  long cache_bytes = 0;                   // GPU: L2
  int lockstep_threads = 1;               // GPU: the warp or wavefront the device reports
};

template <class... Spaces>
struct SpaceList {};

template <class Space>
struct SpaceTag {
  using type = Space;
};

// One specialisation per backend: its backend facts (above), and
//   name                   its command-line name, one of backend_names
//   unavailable_reason()   empty when the space can run here, else why not
//   device_id(space)       the device's ordinal among the backend's devices
// and on GPU backends describe(space) (a line for reports) and facts(space) (DeviceFacts).
template <class Space>
struct SpaceTraits;

#ifdef KOKKOS_ENABLE_OPENMP
template <>
struct SpaceTraits<Kokkos::OpenMP> : Details::CpuFacts {
  static constexpr const char* name = "openmp";
  static std::string unavailable_reason() { return {}; }
  static int device_id(const Kokkos::OpenMP&) { return 0; }  // the host is one device
};
#endif

#ifdef KOKKOS_ENABLE_CUDA
template <>
struct SpaceTraits<Kokkos::Cuda> : Details::NvidiaFacts {
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
            prop.l2CacheSize,
            prop.warpSize};
  }
};
#endif

#ifdef KOKKOS_ENABLE_HIP
namespace Details {
// The AMD architectures whose facts CdnaFacts holds; another (RDNA's 32-lane wavefronts, an
// older CDNA's register file) needs its own facts before this header compiles for it.
#if defined(KOKKOS_ARCH_AMD_GFX90A) || defined(KOKKOS_ARCH_AMD_GFX940) || defined(KOKKOS_ARCH_AMD_GFX942) || \
    defined(KOKKOS_ARCH_AMD_GFX942_APU)
inline constexpr bool cdna_target = true;
#else
inline constexpr bool cdna_target = false;
#endif
}  // namespace Details

template <>
struct SpaceTraits<Kokkos::HIP> : Details::CdnaFacts {
  static_assert(Details::cdna_target,
                "pk::SpaceTraits<Kokkos::HIP> holds the facts of CDNA 2 and 3 GPUs (gfx90a, gfx940, gfx942); "
                "add this architecture's (spaces.hpp) to build for it");
  static_assert(lockstep_threads == Kokkos::Impl::HIPTraits::WarpSize, "Kokkos' wavefront for this architecture");
  static constexpr const char* name = "hip";
  static std::string unavailable_reason() {
    int count = 0;
    const hipError_t status = hipGetDeviceCount(&count);
    if (status != hipSuccess)
      return std::string("no usable HIP device (hipGetDeviceCount: ") + hipGetErrorString(status) + ")";
    if (count == 0) return "no HIP device found";
    return {};
  }
  // Name, compute units, memory and architecture of the device the instance runs on.
  static std::string describe(const Kokkos::HIP& space) {
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, space.hip_device()) != hipSuccess) return "HIP device (unknown)";
    return std::string(prop.name) + " (" + std::to_string(prop.multiProcessorCount) + " CUs, " +
           std::to_string(prop.totalGlobalMem >> 20) + " MiB, " + prop.gcnArchName + ")";
  }
  static int device_id(const Kokkos::HIP& space) { return space.hip_device(); }
  static DeviceFacts facts(const Kokkos::HIP& space) {
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, space.hip_device()) != hipSuccess) return {"HIP device (unknown)"};
    int registers = 0;  // not in HIP 5.2's hipDeviceProp_t
    if (hipDeviceGetAttribute(&registers, hipDeviceAttributeMaxRegistersPerMultiprocessor, space.hip_device()) !=
        hipSuccess)
      registers = 0;
    return {prop.name,
            space.hip_device(),
            prop.multiProcessorCount,
            static_cast<long>(prop.sharedMemPerBlock),
            static_cast<long>(prop.maxSharedMemoryPerMultiProcessor),
            registers,
            prop.l2CacheSize,
            prop.warpSize};
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
#if defined(KOKKOS_ENABLE_CUDA)
using DeviceSpaces = SpaceList<Kokkos::Cuda>;
#elif defined(KOKKOS_ENABLE_HIP)
using DeviceSpaces = SpaceList<Kokkos::HIP>;
#else
using DeviceSpaces = SpaceList<>;
#endif

constexpr bool same_name(const char* a, const char* b) { return *a == *b && (*a == '\0' || same_name(a + 1, b + 1)); }
constexpr bool known_backend(const char* name) {
  for (const char* known : backend_names)
    if (same_name(name, known)) return true;
  return false;
}
template <class... Spaces>
constexpr bool names_known(SpaceList<Spaces...>) {
  return (known_backend(SpaceTraits<Spaces>::name) && ...);
}
}  // namespace Details

// The execution spaces compiled into this build, host first.
using EnabledSpaces = decltype(Details::concat(Details::OpenMPSpaces{}, Details::DeviceSpaces{}));
static_assert(Details::names_known(EnabledSpaces{}), "every backend's name is in pk::backend_names");

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

// The command-line name of the build's GPU backend ("cuda", "hip"), empty in a host-only build.
inline std::string device_backend() {
#if defined(KOKKOS_ENABLE_CUDA)
  return SpaceTraits<Kokkos::Cuda>::name;
#elif defined(KOKKOS_ENABLE_HIP)
  return SpaceTraits<Kokkos::HIP>::name;
#else
  return {};
#endif
}

// GPUs this machine offers the build's device backend (0 in a host-only build).
inline int device_count() {
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
#elif defined(KOKKOS_ENABLE_HIP)
  return hipGetDeviceCount(&count) == hipSuccess ? count : 0;
#else
  return count;
#endif
}

}  // namespace pk
