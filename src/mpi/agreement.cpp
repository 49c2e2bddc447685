#include <pk/mpi/agreement.hpp>

namespace pk::mpi {

namespace {

// `message` of rank `root` on every rank.
std::string broadcast(const Communicator& comm, std::string message, int root) {
  int length = static_cast<int>(message.size());
  MPI_Request request;
  MPI_Ibcast(&length, 1, MPI_INT, root, comm.get(), &request);
  wait_all(1, &request);
  message.resize(static_cast<std::size_t>(length));
  MPI_Ibcast(message.data(), length, MPI_CHAR, root, comm.get(), &request);
  wait_all(1, &request);
  return message;
}

// The reduction `op` of an int over the ranks.
int reduce(const Communicator& comm, int value, MPI_Op op) {
  int result = 0;
  MPI_Request request;
  MPI_Iallreduce(&value, &result, 1, MPI_INT, op, comm.get(), &request);
  wait_all(1, &request);
  return result;
}

}  // namespace

void collectively(const Communicator& comm, const std::function<void()>& body) {
  std::string message;
  bool failed = false;
  try {
    body();
  } catch (const AgreedError&) {
    throw;
  } catch (const Error& e) {
    failed = true;
    message = e.what();
  }
  const int first = reduce(comm, failed ? comm.rank() : comm.size(), MPI_MIN);
  if (first == comm.size()) return;
  const int failures = reduce(comm, failed ? 1 : 0, MPI_SUM);
  message = broadcast(comm, message, first);
  throw AgreedError(failures == comm.size() ? message : "rank " + std::to_string(first) + ": " + message);
}

void require_same_on_every_rank(const Communicator& comm, const std::string& what, const std::string& value) {
  const std::string reference = broadcast(comm, value, 0);
  collectively(comm, [&] {
    require(value == reference,
            what + " is '" + value + "' here but '" + reference + "' on rank 0: every rank must be given the same");
  });
}

}  // namespace pk::mpi
