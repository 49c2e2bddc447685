#pragma once
// Density and velocity of every cell in a buffer of a space (columns density, ux, uy, uz), to
// and from their host form.
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pk::lbm::Details {

template <class MemorySpace>
using FieldBuffer = Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace>;

template <class ExecutionSpace>
FieldBuffer<typename ExecutionSpace::memory_space> field_buffer(const ExecutionSpace& space, std::int64_t cells) {
  return FieldBuffer<typename ExecutionSpace::memory_space>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::lbm::fields"), cells, 4);
}

// Solver::fields() reads the moments a chunk of cells at a time through a buffer of this
// many cells, so that output never needs a whole-lattice copy on the device (32 bytes a
// cell, as much as an fp32 A-A lattice's populations, nearly); 2^22 cells (128 MiB) keep
// each chunk's launch and copy long against their start.
inline std::int64_t field_chunk_cells(std::int64_t cells) { return std::min<std::int64_t>(cells, 1 << 22); }

// Host fields of the geometry's size, as of step `step`, to be filled chunk by chunk.
inline HostFields sized_host_fields(const Geometry& geometry, std::int64_t step) {
  HostFields out;
  out.nx = geometry.nx();
  out.ny = geometry.ny();
  out.nz = geometry.nz();
  out.step = step;
  out.density.resize(static_cast<std::size_t>(geometry.cell_count()));
  out.velocity.resize(3 * out.density.size());
  return out;
}

// The buffer's first `count` rows into `out`, from cell `first` on, through `host`, its
// host mirror (pk::host_mirror: the buffer itself on a host space).
template <class ExecutionSpace, class Buffer>
void copy_into(const ExecutionSpace& space, const Buffer& buffer, const typename Buffer::HostMirror& host,
               std::int64_t first, std::int64_t count, HostFields& out) {
  Kokkos::deep_copy(space, host, buffer);
  space.fence();
  for (std::int64_t r = 0; r < count; ++r) {
    const std::size_t c = static_cast<std::size_t>(first + r);
    out.density[c] = host(r, 0);
    for (int k = 0; k < 3; ++k) out.velocity[3 * c + k] = host(r, k + 1);
  }
}

// A buffer on `space` holding density (one per cell) and velocity (three per cell).
template <class ExecutionSpace>
FieldBuffer<typename ExecutionSpace::memory_space> to_field_buffer(const ExecutionSpace& space,
                                                                   const std::vector<double>& density,
                                                                   const std::vector<double>& velocity) {
  const std::size_t cells = density.size();
  require(velocity.size() == 3 * cells,
          "pk::lbm::Solver::initialize: need one density and three velocity components per cell (", cells, " cells)");
  const auto buffer = field_buffer(space, static_cast<std::int64_t>(cells));
  auto host = pk::host_mirror(buffer);
  for (std::size_t c = 0; c < cells; ++c) {
    host(c, 0) = density[c];
    for (int k = 0; k < 3; ++k) host(c, k + 1) = velocity[3 * c + k];
  }
  Kokkos::deep_copy(space, buffer, host);
  space.fence();  // the host copy goes out of scope
  return buffer;
}

}  // namespace pk::lbm::Details
