#pragma once
// LBM checkpoints (pk/core/checkpoint.hpp): a solver's lattice exactly as stored (every
// slot of the 19 directions, pads and ghost layers included) and its step count, which sets
// the A-A layout; with the storage that pk::autotune chose, so that a restart launches the
// same kernels on the same numbers and continues bit for bit. On the same space only: host
// and device lattices are padded differently.
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace pk::lbm {

// The options of `header` that define an LBM run: the geometry (its size, periodic axes and
// the CRC-32 of its cells) and the parameters that change the numbers.
void add_run_options(CheckpointHeader& header, const Geometry& geometry, const Parameters& parameters,
                     const std::string& precision);

// `parameters` with the storage choices a checkpoint records, so that the restarted solver
// takes them without tuning.
Parameters restart_parameters(Parameters parameters, const CheckpointHeader& header);

// Adds the storage choices and the lattice section of `solver` (a pk::lbm::Solver) to `header`.
template <class Solver>
void describe_state(CheckpointHeader& header, const Solver& solver) {
  header.values.emplace_back("aa-storage", solver.shifted_storage() ? "shifted" : "plain");
  header.values.emplace_back("ab-stores", solver.streaming_stores() ? "streaming" : "cached");
  header.sections.push_back({"lattice", solver.lattice().size() * sizeof(typename Solver::storage_type)});
}

namespace Details {
// Calls f(host pointer, bytes) for each direction's slots in turn: in place on host
// spaces, through one direction's host buffer on others (a nineteenth of the lattice).
template <class Solver, class F>
void for_each_direction_on_host(const Solver& solver, bool to_device, F&& f) {
  using Storage = typename Solver::storage_type;
  const auto& lattice = solver.lattice();
  const std::size_t slots = lattice.extent(0);
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Solver::memory_space>::accessible;
  Kokkos::View<Storage*, Kokkos::HostSpace> buffer;
  if constexpr (!on_host)
    buffer = Kokkos::View<Storage*, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::lbm::checkpoint_buffer"), slots);
  for (int q = 0; q < static_cast<int>(lattice.extent(1)); ++q) {
    const auto column = Kokkos::subview(lattice, Kokkos::ALL, q);  // contiguous: LayoutLeft
    if constexpr (on_host) {
      solver.space().fence();
      f(column.data(), slots * sizeof(Storage));
    } else {
      if (!to_device) Kokkos::deep_copy(solver.space(), buffer, column);
      solver.space().fence();
      f(buffer.data(), slots * sizeof(Storage));
      if (to_device) Kokkos::deep_copy(solver.space(), column, buffer);
    }
  }
  solver.space().fence();
}
}  // namespace Details

// Writes the lattice section of `solver`.
template <class Solver>
void write_lattice(CheckpointWriter& writer, const Solver& solver) {
  Details::for_each_direction_on_host(solver, false,
                                      [&](const void* data, std::size_t bytes) { writer.write(data, bytes); });
}

// Reads the lattice section into `solver` (built with restart_parameters) and sets its
// step count to the checkpoint's.
template <class Solver>
void read_lattice(CheckpointReader& reader, Solver& solver) {
  const CheckpointHeader& h = reader.header();
  const std::uint64_t bytes = solver.lattice().size() * sizeof(typename Solver::storage_type);
  require(h.sections.size() == 1 && h.sections[0].name == "lattice" && h.sections[0].bytes == bytes, "--restart ",
          reader.path(), ": the checkpoint's lattice does not fit this solver's (", bytes,
          " bytes; another program version?)");
  Details::for_each_direction_on_host(solver, true, [&](void* data, std::size_t n) { reader.read(data, n); });
  solver.set_step_count(h.step);
}

}  // namespace pk::lbm
