#pragma once
// Density and velocity of every cell in a buffer of a space (columns density, ux, uy, uz), to
// and from their host form.
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>

#include <Kokkos_Core.hpp>

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

// The buffer's fields on the host, as of step `step`.
template <class ExecutionSpace, class Buffer>
HostFields to_host_fields(const ExecutionSpace& space, const Buffer& buffer, const Geometry& geometry,
                          std::int64_t step) {
  const auto host = readable_on_host(space, buffer);
  HostFields out;
  out.nx = geometry.nx();
  out.ny = geometry.ny();
  out.nz = geometry.nz();
  out.step = step;
  const std::size_t cells = static_cast<std::size_t>(geometry.cell_count());
  out.density.resize(cells);
  out.velocity.resize(3 * cells);
  for (std::size_t c = 0; c < cells; ++c) {
    out.density[c] = host(c, 0);
    for (int k = 0; k < 3; ++k) out.velocity[3 * c + k] = host(c, k + 1);
  }
  return out;
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
