#pragma once
// One rank per GPU: ranks on a node take the node's GPUs in turn, and halo buffers in GPU
// memory go to MPI directly when the MPI library takes device pointers.
#include <pk/mpi/communicator.hpp>

#include <string>
#include <vector>

namespace pk::mpi {

// The Kokkos options of this rank: `kokkos_args` plus --kokkos-device-id=<local rank modulo
// the node's GPUs>, unless they name a device already or the build has no GPU backend.
std::vector<std::string> rank_kokkos_arguments(const Communicator& comm, std::vector<std::string> kokkos_args);

// Whether MPI accepts device pointers of the build's GPU backend, asked of the library at run
// time (Open MPI's MPIX_Query_cuda_support, MPIX_Query_rocm_support); false where it cannot say.
bool gpu_aware();

}  // namespace pk::mpi
