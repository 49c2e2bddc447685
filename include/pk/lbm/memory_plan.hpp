#pragma once
// The memory a pk::lbm::Solver holds at its peak, so that a program can refuse a lattice
// that does not fit before allocating it, and accept the largest that does.
#include <pk/core/memory.hpp>
#include <pk/lbm/details/field_buffers.hpp>
#include <pk/lbm/lattice.hpp>
#include <pk/lbm/parameters.hpp>

#include <cstdint>
#include <string>

namespace pk::lbm {

struct MemoryPlan {
  // On the solver's memory space: the lattice (two for A-B streaming), cell types and wall
  // masks, and the chunk buffer of fields(). Pads and margins (under 0.1 % of a lattice of
  // 64^3 cells or more) are left out: autotune times its choices on the solver's lattice.
  double device = 0;
  // On the host while fields() runs: the fields (density and velocity in double, 32 bytes a
  // cell) and the copy of a chunk (on a host space, the chunk buffer itself once more).
  double host = 0;
};

// Bytes a cell takes on the solver's space while it steps: its populations (in
// `storage_bytes` each: 8 fp64, 4 fp32, 2 fp16 and fp16c; two lattices for A-B), its cell
// type and its wall mask.
inline double lattice_bytes_per_cell(const Parameters& parameters, std::size_t storage_bytes) {
  const int lattices = parameters.streaming == Streaming::ab ? 2 : 1;
  return static_cast<double>(sizeof(std::uint8_t) + sizeof(std::uint32_t) + lattices * D3Q19::size * storage_bytes);
}

inline MemoryPlan memory_plan(std::int64_t cells, const Parameters& parameters, std::size_t storage_bytes) {
  const double chunk = 32.0 * static_cast<double>(Details::field_chunk_cells(cells));
  return {static_cast<double>(cells) * lattice_bytes_per_cell(parameters, storage_bytes) + chunk,
          32.0 * static_cast<double>(cells) + chunk};
}

// A run's lattice as the memory checks see it: its cells (a rank's slab's, on `ranks` ranks),
// its storage and whether the run reads its fields to the host (to write or compare them).
struct LatticeRequest {
  std::int64_t cells = 0;
  Parameters parameters;
  std::size_t storage_bytes = 4;
  bool fields_on_host = false;
  int ranks = 1;

  // "a lattice of N cells", or "a slab of N cells" on several ranks: for refusals.
  std::string name() const { return (ranks > 1 ? "a slab of " : "a lattice of ") + std::to_string(cells) + " cells"; }
};

// What to lower when a lattice at `bytes_per_cell` does not fit: how many cells fit and the
// options of pk-lbm that take less.
inline MemoryAdvice smaller_lattice(const LatticeRequest& lattice, double bytes_per_cell) {
  return [lattice, bytes_per_cell](double bytes) {
    const int ranks = lattice.ranks;
    return "about " + std::to_string(static_cast<long long>(bytes * ranks / bytes_per_cell)) + " cells fit" +
           (ranks > 1 ? " on " + std::to_string(ranks) + " ranks" : "") +
           ": use a smaller lattice (--channel, --flag-file)" +
           (lattice.storage_bytes > 2 ? ", 16-bit storage (--precision fp16c)" : "") +
           (lattice.parameters.streaming == Streaming::ab ? ", one lattice (--pattern aa)" : "") +
           (ranks > 1 ? " or more ranks" : "");
  };
}

// Bytes a cell of the lattice takes in the memory of `Space`, with the fields' host copy
// where that is the same memory.
template <class Space>
double bytes_per_cell(const LatticeRequest& lattice) {
  const MemoryPlan plan = memory_plan(lattice.cells, lattice.parameters, lattice.storage_bytes);
  const bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
  return (host && lattice.fields_on_host ? plan.device + plan.host : plan.device) / static_cast<double>(lattice.cells);
}

// Refuses (pk::Error) a lattice that does not fit the memory of `space`, or the host's that
// receives its fields.
template <class Space>
void require_lattice_memory(const Space& space, const LatticeRequest& lattice) {
  const double per_cell = bytes_per_cell<Space>(lattice);
  require_memory(space, per_cell * static_cast<double>(lattice.cells), lattice.name(),
                 smaller_lattice(lattice, per_cell));
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible ||
      !lattice.fields_on_host)
    return;
  const double host = memory_plan(lattice.cells, lattice.parameters, lattice.storage_bytes).host;
  require_memory(Kokkos::DefaultHostExecutionSpace{}, host, lattice.name() + "'s fields on the host",
                 smaller_lattice(lattice, host / static_cast<double>(lattice.cells)));
}

// Runs body(), an allocation that fails in it refused like require_lattice_memory's refusals.
template <class Space, class Body>
decltype(auto) refuse_if_lattice_out_of_memory(const Space& space, const LatticeRequest& lattice, Body&& body) {
  return refuse_if_out_of_memory(space, lattice.name(), smaller_lattice(lattice, bytes_per_cell<Space>(lattice)),
                                 std::forward<Body>(body));
}

}  // namespace pk::lbm
