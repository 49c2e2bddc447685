#pragma once
// Details::Ranks over an MPI communicator: reductions and the exchange of cells, from GPU
// memory where the MPI reads it (mpi::gpu_aware), else staged through the host. Every wait goes through
// pk::mpi::wait_all, which ends a rank whose partner died instead of hanging.
#include <pk/core/error.hpp>
#include <pk/gbees/details/ranks.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <vector>

namespace pk::gbees::Details {

class MpiRanks : public Ranks {
 public:
  explicit MpiRanks(const mpi::Communicator& comm) : comm_(comm), device_memory_(mpi::gpu_aware()) {}

  int size() const override { return comm_.size(); }
  int rank() const override { return comm_.rank(); }
  void sum(double* values, int count) const override { reduce(values, count, MPI_SUM); }
  void min(double* values, int count) const override { reduce(values, count, MPI_MIN); }

  bool reads_device_memory() const override { return device_memory_; }

  std::vector<int> exchange_counts(const std::vector<int>& sending) const override {
    std::vector<int> arriving(sending.size());
    MPI_Request request;
    MPI_Ialltoall(sending.data(), 1, MPI_INT, arriving.data(), 1, MPI_INT, comm_.get(), &request);
    mpi::wait_all(1, &request);
    return arriving;
  }

  void exchange(const CellRecord* out, const std::vector<int>& sending, CellRecord* in,
                const std::vector<int>& arriving) const override {
    const auto bytes = [](const std::vector<int>& records, std::vector<int>& count, std::vector<int>& at) {
      long offset = 0;
      for (std::size_t r = 0; r < records.size(); ++r) {
        count[r] = static_cast<int>(records[r] * sizeof(CellRecord));
        at[r] = static_cast<int>(offset);
        offset += count[r];
      }
      require(offset < INT_MAX, "GBEES: ", offset / static_cast<long>(sizeof(CellRecord)),
              " cells to exchange at once: more than one MPI message holds (use more ranks)");
    };
    const std::size_t ranks = sending.size();
    std::vector<int> send_bytes(ranks), send_at(ranks), receive_bytes(ranks), receive_at(ranks);
    bytes(sending, send_bytes, send_at);
    bytes(arriving, receive_bytes, receive_at);
    MPI_Request request;
    MPI_Ialltoallv(out, send_bytes.data(), send_at.data(), MPI_BYTE, in, receive_bytes.data(), receive_at.data(),
                   MPI_BYTE, comm_.get(), &request);
    mpi::wait_all(1, &request);
  }

 private:
  void reduce(double* values, int count, MPI_Op op) const {
    const double start = MPI_Wtime();
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, op, comm_.get(), &request);
    mpi::wait_all(1, &request);
    seconds.reductions += MPI_Wtime() - start;
  }

  mpi::Communicator comm_;
  bool device_memory_;
};

}  // namespace pk::gbees::Details
