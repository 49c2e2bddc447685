#pragma once
// MPI for PortableKernels (built with PK_ENABLE_MPI): MPI's lifetime in a program and the
// communicator the distributed solvers run on.
//
//   int main(int argc, char** argv) {
//     pk::mpi::Environment mpi(argc, argv);        // before Kokkos
//     if (mpi.ranks() > 1) {
//       pk::mpi::Communicator world;
//       return pk::mpi::run_app("pk-x", world, [&] { ...; return 0; });
//     }
//   }
#include <mpi.h>

namespace pk::mpi {

// MPI_Init_thread on construction (funneled: only the thread that runs Kokkos' host code
// calls MPI), MPI_Finalize on destruction; both only when an MPI launcher (mpirun, mpiexec,
// srun) started the process. A program started on its own runs as one process without MPI:
// Open MPI's singleton start needs its runtime (a daemon, session files under /tmp) and
// aborts with pages of output where those cannot be had.
class Environment {
 public:
  Environment(int& argc, char**& argv);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  // Processes in MPI_COMM_WORLD; 1 when MPI was not started.
  int ranks() const { return ranks_; }

 private:
  bool started_ = false;
  int ranks_ = 1;
};

// Whether the environment shows an MPI launcher: the variables that Open MPI, PMIx launchers
// (Open MPI 5, Slurm with PMIx), Hydra (MPICH, Intel MPI, MVAPICH), Slurm's PMI2 and Cray
// PALS give their processes. PK_MPI=1 forces MPI on (another launcher), PK_MPI=0 off.
bool launched_by_mpi();

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
  unsigned bit_or(unsigned value) const;  // the bits any rank set

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace pk::mpi
