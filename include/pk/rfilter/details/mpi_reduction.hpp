#pragma once
// CG's reductions in a distributed 3D-Var: this rank's part on its instance, summed over the
// ranks of a communicator.
#include <pk/core/blas.hpp>
#include <pk/mpi/communicator.hpp>

#include <mpi.h>
#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::rfilter::Details {

// CG reductions summed over the ranks of a communicator; the time spent in the reduction
// (waiting for the slowest rank included) is added to *seconds where given.
struct MpiReduction {
  MPI_Comm comm;
  double* seconds = nullptr;
  bool any(bool yes) const {
    int mine = yes ? 1 : 0, all = 0;
    MPI_Request request;
    MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_LOR, comm, &request);
    mpi::wait_all(1, &request);
    return all != 0;
  }
  template <class ExecutionSpace, class Vector>
  double dot(const ExecutionSpace& space, const Vector& a, const Vector& b) const {
    double local = blas::dot(space, a, b), total = 0;
    Kokkos::Timer timer;
    MPI_Request request;
    MPI_Iallreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm, &request);
    mpi::wait_all(1, &request);
    if (seconds) *seconds += timer.seconds();
    return total;
  }
  template <class ExecutionSpace, class Vector>
  double norm(const ExecutionSpace& space, const Vector& a) const {
    return std::sqrt(dot(space, a, a));
  }
};

}  // namespace pk::rfilter::Details
