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

#include <vector>

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

// Waits for `count` requests of a distributed run. A rank that dies (the node's
// out-of-memory killer, a failed GPU) would leave the others waiting for ever in their next
// exchange or collective unless the launcher ends them: mpirun (Open MPI 4.1) does, srun
// without --kill-on-bad-exit does not. So this wait polls, and ends the process at once
// with one line on stderr, "PROGRAM: rank R of N: ...", status 3, and without unwinding
// (MPI may still write into the buffers), when another rank of this node has ended (seen
// within half a second), or when nothing arrived for PK_MPI_TIMEOUT seconds (default 300: a
// rank of another node has died or hangs). Files written before are whole
// (pk/core/atomic_file.hpp). Every wait of the distributed codes and of this library goes
// through it.
void wait_all(int count, MPI_Request* requests);

// PK_MPI_TIMEOUT in seconds (300 when unset); pk::Error unless it is a number > 0.
double wait_timeout();

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
  // Every rank's values, in rank order, on rank 0 (empty on the others).
  std::vector<double> gather(const std::vector<double>& mine) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

}  // namespace pk::mpi
