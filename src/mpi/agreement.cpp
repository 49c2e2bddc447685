#include <pk/mpi/agreement.hpp>

namespace pk::mpi {

namespace {

// `message` of rank `root` on every rank.
std::string broadcast(const Communicator& comm, std::string message, int root) {
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, root, comm.get());
  message.resize(static_cast<std::size_t>(length));
  MPI_Bcast(message.data(), length, MPI_CHAR, root, comm.get());
  return message;
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
  int mine = failed ? comm.rank() : comm.size(), first = 0, count = failed ? 1 : 0, failures = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.get());
  if (first == comm.size()) return;
  MPI_Allreduce(&count, &failures, 1, MPI_INT, MPI_SUM, comm.get());
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
