#include <pk/mpi/communicator.hpp>

#include <cstdlib>
#include <string>

namespace pk::mpi {

bool launched_by_mpi() {
  if (const char* forced = std::getenv("PK_MPI")) return std::string(forced) == "1";
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "PALS_RANKID"})
    if (std::getenv(name)) return true;
  return false;
}

Environment::Environment(int& argc, char**& argv) : started_(launched_by_mpi()) {
  if (!started_) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
}

Environment::~Environment() {
  if (started_) MPI_Finalize();
}

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

unsigned Communicator::bit_or(unsigned value) const {
  unsigned any = 0;
  MPI_Allreduce(&value, &any, 1, MPI_UNSIGNED, MPI_BOR, comm_);
  return any;
}

}  // namespace pk::mpi
