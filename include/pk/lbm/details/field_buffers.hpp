#pragma once
// Density and velocity of every cell in a buffer of a space (columns density, ux, uy, uz), to
// and from their host form.
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/lbm/details/cell_state.hpp>
#include <pk/lbm/details/health.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
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

// The moments of cells [first, last) of `lattice` into rows 0.. of `buffer`.
template <class ExecutionSpace, class Storage>
void launch_moments(const ExecutionSpace& space, const LatticeCells<ExecutionSpace, Storage>& lattice,
                    const FieldBuffer<typename ExecutionSpace::memory_space>& buffer, int first, int last) {
  Kokkos::parallel_for("pk::lbm::moments",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>(space, first, last),
                       Moments<ExecutionSpace, Storage>{lattice, buffer, first});
}

// Density and velocity of every cell of `lattice` on the host, as of step `step`: the
// moments a chunk at a time, through one buffer on the space and its host mirror.
template <class ExecutionSpace, class Storage>
HostFields read_fields(const ExecutionSpace& space, const LatticeCells<ExecutionSpace, Storage>& lattice,
                       const Geometry& geometry, std::int64_t step) {
  const int cells = static_cast<int>(geometry.cell_count());
  const int chunk = static_cast<int>(field_chunk_cells(cells));
  const auto buffer = field_buffer(space, chunk);
  const auto host = host_mirror(buffer);
  HostFields out;
  out.nx = geometry.nx();
  out.ny = geometry.ny();
  out.nz = geometry.nz();
  out.step = step;
  out.density.resize(static_cast<std::size_t>(cells));
  out.velocity.resize(3 * out.density.size());
  for (int first = 0; first < cells; first += chunk) {
    const int last = std::min(cells, first + chunk);
    launch_moments(space, lattice, buffer, first, last);
    Kokkos::deep_copy(space, host, buffer);
    space.fence();
    for (int c = first; c < last; ++c) {
      out.density[c] = host(c - first, 0);
      for (int k = 0; k < 3; ++k) out.velocity[3 * static_cast<std::size_t>(c) + k] = host(c - first, k + 1);
    }
  }
  return out;
}

// Density and velocity of cell `cell` of `lattice`: one cell's moments, read alone.
template <class ExecutionSpace, class Storage>
CellMoments read_cell(const ExecutionSpace& space, const LatticeCells<ExecutionSpace, Storage>& lattice, int cell) {
  const auto buffer = field_buffer(space, 1);
  launch_moments(space, lattice, buffer, cell, cell + 1);
  const auto host = readable_on_host(space, buffer);
  return {host(0, 0), {host(0, 1), host(0, 2), host(0, 3)}};
}

// The summary of the non-solid cells of `lattice`: two reductions over `all` (every cell).
template <class ExecutionSpace, class Storage>
FlowSummary summarize(const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>& all,
                      const LatticeCells<ExecutionSpace, Storage>& lattice) {
  FlowSummary out;
  Kokkos::parallel_reduce("pk::lbm::mass", all, SummaryReduction<ExecutionSpace, Storage, false>{lattice}, out.mass);
  Kokkos::parallel_reduce("pk::lbm::max_speed", all, SummaryReduction<ExecutionSpace, Storage, true>{lattice},
                          Kokkos::Max<double>(out.max_speed));
  if (std::isinf(out.max_speed)) out.max_speed = std::nan("");
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
