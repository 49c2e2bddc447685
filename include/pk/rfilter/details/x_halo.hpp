#pragma once
// x layers exchanged between the slabs of neighbouring ranks (distributed_three_dvar.hpp),
// in place, on fields in the extended layout: a rank's slab with x layers of room on each
// side that has a neighbour (none at the grid's ends), x index = room below + slab x.
// fill() puts the neighbours' layers beside the slab's own; add_back(), its transpose, adds
// what lies there into the neighbours' own layers and zeroes it.
#include <pk/core/spaces.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace pk::rfilter::Details {

// target += source, layer by layer (a free function: nvcc takes no device lambda in a
// private member function).
template <class ExecutionSpace, class Target, class Source>
void add_layers(const ExecutionSpace& space, const Target& target, const Source& source) {
  if (source.size() == 0) return;
  Kokkos::parallel_for(
      "pk::rfilter::halo::add",
      Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<3, Kokkos::Iterate::Left>, Kokkos::IndexType<int>>(
          space, {0, 0, 0},
          {static_cast<int>(source.extent(0)), static_cast<int>(source.extent(1)), static_cast<int>(source.extent(2))}),
      KOKKOS_LAMBDA(const int i, const int j, const int k) { target(i, j, k) += source(i, j, k); });
}

template <class ExecutionSpace>
class XHalo {
 public:
  using Memory = typename ExecutionSpace::memory_space;
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, Memory, Kokkos::MemoryUnmanaged>;

  // `own`: the slab's x layers; `room`: the layers of room beside it where it has a
  // neighbour; every rank's slab is at least `room` layers thick.
  XHalo(const mpi::Communicator& comm, const ExecutionSpace& space, int own, int ny, int nz, int room)
      : comm_(comm),
        space_(space),
        lower_(comm.rank() > 0 ? comm.rank() - 1 : MPI_PROC_NULL),
        upper_(comm.rank() < comm.size() - 1 ? comm.rank() + 1 : MPI_PROC_NULL),
        own_(own),
        ny_(ny),
        nz_(nz),
        room_(room),
        room_below_(lower_ != MPI_PROC_NULL ? room : 0),
        staged_(!runs_on_host<ExecutionSpace> && !mpi::gpu_aware()) {
    for (Buffer* b : {&to_lower_, &to_upper_, &from_lower_, &from_upper_}) {
      b->on_space = Flat(Kokkos::view_alloc(space, "pk::rfilter::halo::message"), std::size_t(room) * ny * nz);
      if (staged_) b->on_host = Staged(Kokkos::view_alloc("pk::rfilter::halo::staged"), b->on_space.extent(0));
    }
  }

  // The `low` layers below the slab := the lower rank's last `low`; the `high` above := the
  // upper rank's first `high` (where there is such a rank).
  void fill(const Field& field, int low, int high) {
    const int from_lower = has_lower() ? low : 0, from_upper = has_upper() ? high : 0;
    const int to_lower = has_lower() ? high : 0, to_upper = has_upper() ? low : 0;
    const int first = room_below_, end = room_below_ + own_;
    exchange(layers(field, first, first + to_lower), layers(field, end - to_upper, end), from_lower, from_upper,
             [&](const Field& lower_part, const Field& upper_part) {
               Kokkos::deep_copy(space_, layers(field, first - from_lower, first), lower_part);
               Kokkos::deep_copy(space_, layers(field, end, end + from_upper), upper_part);
             });
  }

  // The transpose of fill(): the `low` layers below the slab are added into the lower rank's
  // last `low`, the `high` above into the upper rank's first `high`; then they are zeroed.
  void add_back(const Field& field, int low, int high) {
    const int first = room_below_, end = room_below_ + own_;
    const auto below = layers(field, first - (has_lower() ? low : 0), first);
    const auto above = layers(field, end, end + (has_upper() ? high : 0));
    const int from_lower = has_lower() ? high : 0, from_upper = has_upper() ? low : 0;
    exchange(below, above, from_lower, from_upper, [&](const Field& lower_part, const Field& upper_part) {
      add_layers(space_, layers(field, first, first + from_lower), lower_part);
      add_layers(space_, layers(field, end - from_upper, end), upper_part);
      Kokkos::deep_copy(space_, below, 0.0);
      Kokkos::deep_copy(space_, above, 0.0);
    });
  }

  // Layers of room below and above the slab in the extended layout.
  int room_below() const { return room_below_; }
  int room_above() const { return has_upper() ? room_ : 0; }
  // Whether messages pass through host memory (a GPU space, MPI not GPU-aware).
  bool staged() const { return staged_; }
  // Wall time in exchanges so far: packing, messages, unpacking (not the kernels before).
  double seconds() const { return seconds_; }

 private:
  using Flat = Kokkos::View<double*, Memory>;
  using Staged = Kokkos::View<double*, StagingSpace<ExecutionSpace>>;
  // A message: layers contiguous at the start of a buffer allocated once (a fresh allocation
  // per message cost more than the filter: page faults on hosts, cudaFree's device
  // synchronisation on GPUs). MPI reads it where it lies when it can (a host space, or a
  // GPU-aware MPI), else through pinned host memory.
  struct Buffer {
    Flat on_space;
    Staged on_host;
  };

  bool has_lower() const { return lower_ != MPI_PROC_NULL; }
  bool has_upper() const { return upper_ != MPI_PROC_NULL; }
  static auto layers(const Field& f, int begin, int end) {
    return Kokkos::subview(f, Kokkos::pair<int, int>(begin, end), Kokkos::ALL, Kokkos::ALL);
  }

  // Sends `to_lower` and `to_upper`, receives `from_lower` and `from_upper` layers, then
  // calls land() with the received layers on the space.
  template <class Down, class Up, class Land>
  void exchange(const Down& to_lower, const Up& to_upper, int from_lower, int from_upper, const Land& land) {
    space_.fence();
    Kokkos::Timer timer;
    stage_out(to_lower, to_lower_);
    stage_out(to_upper, to_upper_);
    space_.fence();
    MPI_Request requests[4];
    post(MPI_Irecv, from_lower_, from_lower, lower_, 0, requests[0]);
    post(MPI_Irecv, from_upper_, from_upper, upper_, 1, requests[1]);
    post(MPI_Isend, to_lower_, static_cast<int>(to_lower.extent(0)), lower_, 1, requests[2]);
    post(MPI_Isend, to_upper_, static_cast<int>(to_upper.extent(0)), upper_, 0, requests[3]);
    mpi::wait_all(4, requests);
    land(stage_in(from_lower_, from_lower), stage_in(from_upper_, from_upper));
    space_.fence();
    seconds_ += timer.seconds();
  }

  Field message(const Buffer& b, int count) const { return Field(b.on_space.data(), count, ny_, nz_); }
  std::size_t doubles(int count) const { return std::size_t(count) * ny_ * nz_; }

  template <class Source>
  void stage_out(const Source& source, const Buffer& b) const {
    const int count = static_cast<int>(source.extent(0));
    Kokkos::deep_copy(space_, message(b, count), source);
    const auto part = Kokkos::pair<std::size_t, std::size_t>(0, doubles(count));
    if (staged_) Kokkos::deep_copy(space_, Kokkos::subview(b.on_host, part), Kokkos::subview(b.on_space, part));
  }
  Field stage_in(const Buffer& b, int count) const {
    const auto part = Kokkos::pair<std::size_t, std::size_t>(0, doubles(count));
    if (staged_) Kokkos::deep_copy(space_, Kokkos::subview(b.on_space, part), Kokkos::subview(b.on_host, part));
    return message(b, count);
  }
  template <class Post>
  void post(Post&& mpi_call, const Buffer& b, int count, int peer, int tag, MPI_Request& request) const {
    double* data = staged_ ? b.on_host.data() : b.on_space.data();
    mpi_call(data, static_cast<int>(doubles(count)), MPI_DOUBLE, peer, tag, comm_.get(), &request);
  }

  mpi::Communicator comm_;
  ExecutionSpace space_;
  int lower_, upper_;  // neighbouring ranks, MPI_PROC_NULL at the grid's ends
  int own_, ny_, nz_, room_, room_below_;
  bool staged_;
  double seconds_ = 0;
  Buffer to_lower_, to_upper_, from_lower_, from_upper_;
};

}  // namespace pk::rfilter::Details
