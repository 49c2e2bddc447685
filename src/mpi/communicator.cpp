#include <pk/mpi/communicator.hpp>

namespace pk::mpi {

Environment::Environment(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
}

Environment::~Environment() { MPI_Finalize(); }

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
}

double Communicator::sum(double value) const {
  double total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, comm_);
  return total;
}

double Communicator::max(double value) const {
  double largest = 0;
  MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return largest;
}

}  // namespace pk::mpi
