#pragma once
// The memory a pk::lbm::Solver holds at its peak, so that a program can refuse a lattice
// that does not fit before allocating it, and accept the largest that does.
#include <pk/lbm/details/field_buffers.hpp>
#include <pk/lbm/lattice.hpp>
#include <pk/lbm/parameters.hpp>

#include <cstdint>

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

}  // namespace pk::lbm
