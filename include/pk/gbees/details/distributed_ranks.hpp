#pragma once
// Details::Ranks over an MPI communicator: reductions and the exchange of cells staged
// through the host, so that any MPI will do (CUDA-aware or not). Every wait goes through
// pk::mpi::wait_all, which ends a rank whose partner died instead of hanging.
#include <pk/core/error.hpp>
#include <pk/gbees/details/ranks.hpp>
#include <pk/mpi/communicator.hpp>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <vector>

namespace pk::gbees::Details {

class MpiRanks : public Ranks {
 public:
  explicit MpiRanks(const mpi::Communicator& comm) : comm_(comm) {}

  // Time spent in reductions and exchanges, waits for slower ranks included.
  double seconds() const { return seconds_; }

  int size() const override { return comm_.size(); }
  int rank() const override { return comm_.rank(); }
  void sum(double* values, int count) const override { reduce(values, count, MPI_SUM); }
  void min(double* values, int count) const override { reduce(values, count, MPI_MIN); }

  std::vector<CellRecord> exchange(const std::vector<std::vector<CellRecord>>& sends) const override {
    const Clock clock(seconds_);
    const int ranks = size();
    constexpr long record = sizeof(CellRecord);
    std::vector<int> send_bytes(ranks), receive_bytes(ranks), send_at(ranks), receive_at(ranks);
    std::vector<CellRecord> out_buffer;
    long total = 0;
    for (int s = 0; s < ranks; ++s) {
      require(static_cast<long>(sends[s].size()) * record < INT_MAX, "GBEES: ", sends[s].size(),
              " cells to send to one rank: more than one MPI message holds (use more ranks)");
      send_bytes[s] = static_cast<int>(sends[s].size() * record);
      total += send_bytes[s];
    }
    require(total < INT_MAX, "GBEES: ", total / record, " cells to send: more than one MPI exchange holds");
    out_buffer.reserve(static_cast<std::size_t>(total / record));
    for (int s = 0; s < ranks; ++s) {
      send_at[s] = static_cast<int>(out_buffer.size() * record);
      out_buffer.insert(out_buffer.end(), sends[s].begin(), sends[s].end());
    }
    MPI_Request request;
    MPI_Ialltoall(send_bytes.data(), 1, MPI_INT, receive_bytes.data(), 1, MPI_INT, comm_.get(), &request);
    mpi::wait_all(1, &request);
    long arriving = 0;
    for (int s = 0; s < ranks; ++s) {
      receive_at[s] = static_cast<int>(arriving);
      arriving += receive_bytes[s];
      require(arriving < INT_MAX, "GBEES: more cells arriving than one MPI exchange holds");
    }
    std::vector<CellRecord> in_buffer(static_cast<std::size_t>(arriving / record));
    MPI_Ialltoallv(out_buffer.data(), send_bytes.data(), send_at.data(), MPI_BYTE, in_buffer.data(),
                   receive_bytes.data(), receive_at.data(), MPI_BYTE, comm_.get(), &request);
    mpi::wait_all(1, &request);
    return in_buffer;
  }

 private:
  // Adds the time from its construction to its destruction to `total`.
  struct Clock {
    double& total;
    double start = MPI_Wtime();
    explicit Clock(double& t) : total(t) {}
    ~Clock() { total += MPI_Wtime() - start; }
  };

  void reduce(double* values, int count, MPI_Op op) const {
    const Clock clock(seconds_);
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, op, comm_.get(), &request);
    mpi::wait_all(1, &request);
  }

  mpi::Communicator comm_;
  mutable double seconds_ = 0;
};

}  // namespace pk::gbees::Details
