#pragma once
// MPI for PortableKernels (built with PK_ENABLE_MPI): MPI's lifetime in a program and the
// communicator the distributed solvers run on.
//
//   int main(int argc, char** argv) {
//     pk::mpi::Environment mpi(argc, argv);        // before Kokkos
//     pk::mpi::Communicator world;
//     return pk::mpi::run_app("pk-x", world, [&] { ...; return 0; });
//   }
#include <mpi.h>

namespace pk::mpi {

// MPI_Init_thread on construction (funneled: only the thread that runs Kokkos' host code
// calls MPI), MPI_Finalize on destruction.
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
};

// A communicator (not owned): its rank and size, and the rank among the processes of this
// node, which picks the node's GPU.
class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }

  double sum(double value) const;
  double max(double value) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace pk::mpi
