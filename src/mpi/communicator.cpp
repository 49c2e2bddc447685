#include <pk/core/error.hpp>
#include <pk/mpi/communicator.hpp>

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace pk::mpi {

namespace {

int world_rank = 0, world_size = 1;
constexpr double default_timeout = 300;  // seconds: longer than a healthy run's waits (output, a slow rank)

// Another rank of this node, watched while waiting.
struct Peer {
  int rank;
  long pid;
};
std::vector<Peer> node_peers;

std::string executable(long pid) {
  char path[4096];
  const ssize_t length = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), path, sizeof path);
  return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : "";
}

// Whether process `pid` still runs: it exists and is not a zombie its parent has yet to reap.
bool running(long pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto name_end = text.rfind(')');  // "PID (NAME) STATE ...": NAME may hold anything
  return name_end == std::string::npos || text.compare(name_end, 3, ") Z") != 0;
}

// The other ranks of this node that this process can watch: the same program, in the same
// process namespace (a rank in a container of its own is left to the timeout).
void find_node_peers() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &node);
  int size = 1;
  MPI_Comm_size(node, &size);
  long mine[2] = {world_rank, static_cast<long>(::getpid())};
  std::vector<long> all(2 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, node);
  MPI_Comm_free(&node);
  const std::string self = executable(::getpid());
  for (int i = 0; i < size; ++i) {
    const Peer peer{static_cast<int>(all[2 * i]), all[2 * i + 1]};
    if (peer.rank != world_rank && running(peer.pid) && !self.empty() && executable(peer.pid) == self)
      node_peers.push_back(peer);
  }
}

// "PROGRAM: rank R of N: what\n", written whole by one write(): the other ranks' lines, which
// the launcher forwards beside it, cannot cut into it.
std::string rank_line(const std::string& what) {
  return std::string(program_invocation_short_name) + ": rank " + std::to_string(world_rank) + " of " +
         std::to_string(world_size) + ": " + what + "\n";
}

void write_line(const std::string& line) {
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());  // ends anyway
}

// Ends the process with one line on stderr: no unwinding, no MPI_Finalize (it would wait for
// the lost rank).
[[noreturn]] void give_up(int status, const std::string& why) {
  std::cout.flush();
  std::fflush(stdout);
  write_line(rank_line(why));
  std::_Exit(status);
}

}  // namespace

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
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  world_size = ranks_;
  find_node_peers();
}

Environment::~Environment() {
  if (started_) MPI_Finalize();
}

double wait_timeout() {
  const char* text = std::getenv("PK_MPI_TIMEOUT");
  if (!text) return default_timeout;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  require(*text && *end == '\0' && seconds > 0 && seconds <= 1e9, "PK_MPI_TIMEOUT=", text,
          ": give the seconds a rank waits for the others before it stops (a number > 0)");
  return seconds;
}

void wait_all(int count, MPI_Request* requests) {
  using Clock = std::chrono::steady_clock;
  // run_program refuses a bad PK_MPI_TIMEOUT up front; a wait, inside the agreement on that
  // refusal perhaps, takes the default instead.
  static const double timeout = [] {
    try {
      return wait_timeout();
    } catch (const Error&) {
      return default_timeout;
    }
  }();
  const auto start = Clock::now();
  auto checked = start;
  for (;;) {
    int done = 0;
    MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    if (done) return;
    const auto now = Clock::now();
    if (now - checked > std::chrono::milliseconds(500)) {
      checked = now;
      for (const Peer& peer : node_peers)
        if (!running(peer.pid))
          give_up(3, "rank " + std::to_string(peer.rank) + " (process " + std::to_string(peer.pid) +
                         " on this node) has ended; the run cannot go on without it");
      const double waited = std::chrono::duration<double>(now - start).count();
      if (waited > timeout) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeout);
        give_up(3, std::string("no message from the other ranks for ") + seconds +
                       " s: one has died or hangs (PK_MPI_TIMEOUT sets how long a rank waits)");
      }
    }
    std::this_thread::yield();
  }
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
}

namespace {

// One value reduced over the ranks of `comm`, waited for as every wait is (wait_all).
template <class T>
T all_reduce(T value, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  T result{};
  MPI_Request request;
  MPI_Iallreduce(&value, &result, 1, type, op, comm, &request);
  wait_all(1, &request);
  return result;
}

}  // namespace

double Communicator::sum(double value) const { return all_reduce(value, MPI_DOUBLE, MPI_SUM, comm_); }

double Communicator::max(double value) const { return all_reduce(value, MPI_DOUBLE, MPI_MAX, comm_); }

unsigned Communicator::bit_or(unsigned value) const { return all_reduce(value, MPI_UNSIGNED, MPI_BOR, comm_); }

std::vector<double> Communicator::gather(const std::vector<double>& mine) const {
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank_ == 0 ? size_ : 0), offsets(counts.size());
  MPI_Request request;
  MPI_Igather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_, &request);
  wait_all(1, &request);
  long total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  require(total <= INT_MAX, "MPI gather: ", total, " values, more than one message holds");
  std::vector<double> all(static_cast<std::size_t>(total));
  MPI_Igatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm_,
               &request);
  wait_all(1, &request);
  return all;
}

}  // namespace pk::mpi
