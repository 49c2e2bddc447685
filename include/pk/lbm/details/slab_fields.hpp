#pragma once
// The host side of a rank's slab in a distributed LBM run: states of the whole lattice called
// with global coordinates, and the VTK piece of a slab (its cells plus the next rank's first
// layer).
#include <pk/lbm/fields.hpp>
#include <pk/lbm/slabs.hpp>
#include <pk/mpi/communicator.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <vector>

namespace pk::lbm::Details {

// A state (see Details::Initialize) of the whole lattice, called for a rank's cells with
// their global cell index and coordinates.
template <class State>
struct GlobalState {
  State state;
  int axis, offset, extent, nx, ny;  // global layer = local layer + offset, modulo extent

  KOKKOS_INLINE_FUNCTION void operator()(int, int x, int y, int z, double& density, double (&velocity)[3]) const {
    int at[3] = {x, y, z};
    at[axis] = (at[axis] + offset + extent) % extent;
    state(at[0] + nx * (at[1] + ny * at[2]), at[0], at[1], at[2], density, velocity);
  }
};

// Index of cell (x, y, z) in its layer across `axis`, the lower axis fastest.
inline int face_index(int axis, const std::array<int, 3>& size, int x, int y, int z) {
  return axis == 0 ? y + size[1] * z : axis == 1 ? x + size[0] * z : x + size[0] * y;
}

// Collective. The slab's fields `mine` (of size `size`) plus the first layer of the next
// rank's (none on the last rank): the point data of a VTK piece, which must share its
// boundary points with the next piece.
inline HostFields piece_fields(const mpi::Communicator& comm, const HostFields& mine, const Slab& slab,
                               const std::array<int, 3>& size) {
  const int face = mine.nx * mine.ny * mine.nz / size[slab.axis];
  const int rank = comm.rank(), ranks = comm.size();
  // the first layer's densities, then its velocities, face cell j as in face_index()
  std::vector<double> first(4 * face), next(4 * face);
  for (int z = 0; z < size[2]; ++z)
    for (int y = 0; y < size[1]; ++y)
      for (int x = 0; x < size[0]; ++x) {
        const int at[3] = {x, y, z};
        if (at[slab.axis] != 0) continue;
        const std::size_t c = x + static_cast<std::size_t>(size[0]) * (y + static_cast<std::size_t>(size[1]) * z);
        const int j = face_index(slab.axis, size, x, y, z);
        first[j] = mine.density[c];
        for (int k = 0; k < 3; ++k) first[face + 3 * j + k] = mine.velocity[3 * c + k];
      }
  MPI_Request requests[2];
  MPI_Irecv(next.data(), 4 * face, MPI_DOUBLE, rank < ranks - 1 ? rank + 1 : MPI_PROC_NULL, 0, comm.get(),
            &requests[0]);
  MPI_Isend(first.data(), 4 * face, MPI_DOUBLE, rank > 0 ? rank - 1 : MPI_PROC_NULL, 0, comm.get(), &requests[1]);
  mpi::wait_all(2, requests);
  if (rank == ranks - 1) return mine;
  std::array<int, 3> bigger = size;
  ++bigger[slab.axis];
  HostFields piece;
  piece.nx = bigger[0], piece.ny = bigger[1], piece.nz = bigger[2];
  piece.step = mine.step;
  for (int z = 0; z < bigger[2]; ++z)
    for (int y = 0; y < bigger[1]; ++y)
      for (int x = 0; x < bigger[0]; ++x) {
        const int at[3] = {x, y, z};
        if (at[slab.axis] < size[slab.axis]) {
          const std::size_t c = x + static_cast<std::size_t>(size[0]) * (y + static_cast<std::size_t>(size[1]) * z);
          piece.density.push_back(mine.density[c]);
          for (int k = 0; k < 3; ++k) piece.velocity.push_back(mine.velocity[3 * c + k]);
        } else {
          const int j = face_index(slab.axis, size, x, y, z);
          piece.density.push_back(next[j]);
          for (int k = 0; k < 3; ++k) piece.velocity.push_back(next[face + 3 * j + k]);
        }
      }
  return piece;
}

}  // namespace pk::lbm::Details
