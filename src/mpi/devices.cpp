#include <pk/core/spaces.hpp>
#include <pk/mpi/devices.hpp>

#include <algorithm>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's extensions: MPIX_Query_cuda_support, MPIX_Query_rocm_support
#endif

namespace pk::mpi {

std::vector<std::string> rank_kokkos_arguments(const Communicator& comm, std::vector<std::string> kokkos_args) {
  const bool named = std::any_of(kokkos_args.begin(), kokkos_args.end(), [](const std::string& arg) {
    return arg.rfind("--kokkos-device-id", 0) == 0 || arg.rfind("--kokkos-map-device-id-by", 0) == 0;
  });
  const int devices = device_count();
  if (!named && devices > 0) kokkos_args.push_back("--kokkos-device-id=" + std::to_string(comm.local_rank() % devices));
  return kokkos_args;
}

bool gpu_aware() {
  // Asked at run time, not from MPIX_CUDA_AWARE_SUPPORT: the header of the Open MPI a
  // program was built with (Debian's says 0) need not be the library it runs with. Each
  // backend's own question: an MPI that takes CUDA pointers need not take HIP ones.
  const std::string backend = device_backend();
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  if (backend == "cuda") return MPIX_Query_cuda_support() == 1;
#endif
#if defined(OMPI_HAVE_MPI_EXT_ROCM) && OMPI_HAVE_MPI_EXT_ROCM
  if (backend == "hip") return MPIX_Query_rocm_support() == 1;
#endif
  return false;
}

}  // namespace pk::mpi
