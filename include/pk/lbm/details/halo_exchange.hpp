#pragma once
// The ghost-layer exchange of a distributed LBM run (see slabs.hpp): after every step, the
// populations that cross a rank face go to the neighbour. Through a face along the split
// axis cross the 5 directions q whose c_q has a component along it; which slots hold them
// depends on the layout the step left (details/storage.hpp):
//   home (A-B):            the sender's boundary layer, the 5 q travelling out of its slab
//                          -> the receiver's ghost layer, same slots (its pull reads them);
//   swapped (A-A, even):   the sender's boundary layer, the 5 q pointing into its slab
//                          (f*_q is stored at opposite(q)) -> the receiver's ghost layer,
//                          which the odd step gathers from;
//   streamed (A-A, odd):   the sender's ghost layer, where its odd step scattered the 5 q
//                          travelling out of its slab -> the receiver's boundary layer, the
//                          slots its even step reads, except where the link from the
//                          sender's side is a wall: there the receiver's own bounce-back
//                          already wrote the slot.
// start() packs the messages once the layers beside the ghost layers have taken the step,
// finish() sends, waits and unpacks: the rest of the slab takes the step in between.
// Messages are tagged by the face they leave through, so two ranks that are each other's
// low and high neighbours (2 ranks, periodic axis), or one rank that is its own, pair up.
// Buffers live in the space's memory; MPI reads them there when it is GPU-aware (or the
// space is the host's), else through pinned host buffers, copied on a stream of their own
// while the rest of the slab takes the step.
#include <pk/core/spaces.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/lattice.hpp>
#include <pk/lbm/slabs.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>

namespace pk::lbm::Details {

constexpr int crossing_directions = 5;  // D3Q19 velocities with c = +1 (or -1) along an axis

// Copies the crossing populations of one layer to (pack) or from (unpack) a face buffer.
template <class ExecutionSpace, class Storage, bool pack>
struct FaceCopy {
  using MemorySpace = typename ExecutionSpace::memory_space;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Kokkos::View<Storage**, Kokkos::LayoutLeft, MemorySpace> buffer;  // (face cell, k)
  Kokkos::Array<int, crossing_directions> directions;
  int axis, layer;
  bool shifted;
  bool skip_walls;  // unpack into the boundary layer: leave slots whose source link is a wall

  // Face cell j -> lattice cell, the face's lower axis fastest.
  KOKKOS_INLINE_FUNCTION int cell_of(int j) const {
    if (axis == 0) return layer + grid.nx * j;
    if (axis == 1) return j % grid.nx + grid.nx * (layer + grid.ny * (j / grid.nx));
    return j + grid.nx * grid.ny * layer;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const int j, const int k) const {
    const int cell = cell_of(j), q = directions[k];
    if constexpr (pack) {
      buffer(j, k) = slot(f, cell, q, shifted);
    } else {
      if (skip_walls && (grid.type(cell) == solid_flag || ((grid.walls(cell) >> D3Q19::opposite(q)) & 1u))) return;
      slot(f, cell, q, shifted) = buffer(j, k);
    }
  }
};

template <class ExecutionSpace, class Storage>
class HaloExchange {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Buffer = Kokkos::View<Storage**, Kokkos::LayoutLeft, MemorySpace>;
  using Staged = Kokkos::View<Storage**, Kokkos::LayoutLeft, StagingSpace<ExecutionSpace>>;
  static constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

 public:
  HaloExchange(const mpi::Communicator& comm, const ExecutionSpace& space, const Slab& slab,
               const Grid<MemorySpace>& grid)
      : comm_(comm),
        space_(space),
        copies_(independent_instance(space)),
        slab_(slab),
        grid_(grid),
        staged_(!host_memory && !mpi::gpu_aware()) {
    const int extent[3] = {grid.nx, grid.ny, grid.nz};
    face_cells_ = extent[0] * extent[1] * extent[2] / extent[slab.axis];
    for (int side = 0; side < 2; ++side) {
      if (neighbour(side) < 0) continue;
      send_[side] = Buffer(Kokkos::view_alloc(space, "pk::lbm::halo::send"), face_cells_, crossing_directions);
      receive_[side] = Buffer(Kokkos::view_alloc(space, "pk::lbm::halo::receive"), face_cells_, crossing_directions);
      if (!staged_) continue;
      send_host_[side] = Staged(Kokkos::view_alloc("pk::lbm::halo::send_staged"), face_cells_, crossing_directions);
      receive_host_[side] =
          Staged(Kokkos::view_alloc("pk::lbm::halo::receive_staged"), face_cells_, crossing_directions);
    }
  }

  // Starts the exchange of the populations crossing both faces for the layout the step
  // under way leaves in `f` (see the top of this file), once the layers beside the ghost
  // layers have taken it: posts the receives and packs the messages (and sends them, unless
  // they go through host buffers). Queue the rest of the step, then call finish().
  void start(const Lattice<Storage, MemorySpace>& f, Layout layout, bool shifted) {
    f_ = f;
    layout_ = layout;
    shifted_ = shifted;
    pending_ = 0;
    for (int side = 0; side < 2; ++side) {
      if (neighbour(side) < 0) continue;
      Storage* received = staged_ ? receive_host_[side].data() : receive_[side].data();
      MPI_Irecv(received, bytes(), MPI_BYTE, neighbour(side), 1 - side, comm_.get(), &requests_[pending_++]);
    }
    for (int side = 0; side < 2; ++side)
      if (neighbour(side) >= 0)
        copy<true>(side, from_ghosts() ? ghost_layer(side) : boundary_layer(side), outward() ? side : 1 - side);
    space_.fence();
    if (!staged_) post_sends();
  }

  // Sends the staged messages (their copies to the host overlap the kernels queued since
  // start()), waits for all and unpacks them (kernels queued on the space after those).
  void finish() {
    if (staged_) {
      for (int side = 0; side < 2; ++side)
        if (neighbour(side) >= 0) Kokkos::deep_copy(copies_, send_host_[side], send_[side]);
      copies_.fence();
      post_sends();
    }
    mpi::wait_all(pending_, requests_);
    if (staged_) {
      for (int side = 0; side < 2; ++side)
        if (neighbour(side) >= 0) Kokkos::deep_copy(copies_, receive_[side], receive_host_[side]);
      copies_.fence();
    }
    for (int side = 0; side < 2; ++side) {
      if (neighbour(side) < 0) continue;
      // what the neighbour sent out of its slab comes into this one
      copy<false>(side, from_ghosts() ? boundary_layer(side) : ghost_layer(side), outward() ? 1 - side : side);
    }
  }

  bool staged() const { return staged_; }

 private:
  void post_sends() {
    for (int side = 0; side < 2; ++side) {
      if (neighbour(side) < 0) continue;
      Storage* sent = staged_ ? send_host_[side].data() : send_[side].data();
      MPI_Isend(sent, bytes(), MPI_BYTE, neighbour(side), side, comm_.get(), &requests_[pending_++]);
    }
  }

  int neighbour(int side) const { return side == 0 ? slab_.low_neighbour : slab_.high_neighbour; }
  int ghost_layer(int side) const { return side == 0 ? 0 : slab_.local_extent() - 1; }
  int boundary_layer(int side) const {
    return side == 0 ? slab_.first_owned() : slab_.first_owned() + slab_.layers() - 1;
  }
  int bytes() const { return static_cast<int>(face_cells_ * crossing_directions * sizeof(Storage)); }
  bool from_ghosts() const { return layout_ == Layout::streamed; }
  // the slots sent travel out of the sender's slab, except in the swapped layout
  bool outward() const { return layout_ != Layout::swapped; }

  // The 5 directions that point to the low (0) or high (1) side along the split axis.
  Kokkos::Array<int, crossing_directions> directions(int towards) const {
    Kokkos::Array<int, crossing_directions> found{};
    int n = 0;
    for (int q = 1; q < D3Q19::size; ++q)
      if (D3Q19::c(q, slab_.axis) == (towards == 0 ? -1 : 1)) found[n++] = q;
    return found;
  }

  template <bool pack>
  void copy(int side, int layer, int towards) {
    using Policy =
        Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2, Kokkos::Iterate::Left>, Kokkos::IndexType<int>>;
    Kokkos::parallel_for(
        pack ? "pk::lbm::halo::pack" : "pk::lbm::halo::unpack",
        Policy(space_, {0, 0}, {face_cells_, crossing_directions}),
        FaceCopy<ExecutionSpace, Storage, pack>{f_, grid_, pack ? send_[side] : receive_[side], directions(towards),
                                                slab_.axis, layer, shifted_, !pack && from_ghosts()});
  }

  mpi::Communicator comm_;
  ExecutionSpace space_, copies_;  // copies_: the staged messages' copies
  Slab slab_;
  Grid<MemorySpace> grid_;
  bool staged_;
  int face_cells_ = 0;
  std::array<Buffer, 2> send_, receive_;
  std::array<Staged, 2> send_host_, receive_host_;
  // the exchange under way
  Lattice<Storage, MemorySpace> f_;
  Layout layout_ = Layout::home;
  bool shifted_ = false;
  MPI_Request requests_[4];
  int pending_ = 0;
};

}  // namespace pk::lbm::Details
