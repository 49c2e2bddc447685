#pragma once
// Parallel HDF5 output of fields on a regular grid (built with PK_ENABLE_HDF5, on MPI): one
// .h5 file per output step, written collectively by every rank, each writing its box of the
// grid as a hyperslab of every dataset, and an XDMF file (.xmf) beside it that ParaView and
// VisIt open. Datasets are the whole grid, z slowest: [nz][ny][nx] for a scalar,
// [nz][ny][nx][3] for a vector; points at integer coordinates (spacing 1, origin 0), as
// the .vti files of pk-lbm. Both files appear whole or not at all (a temporary name, renamed).
#include <pk/mpi/communicator.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::hdf5 {

// A field on a rank's box, x fastest: `components` doubles per point, or one byte per point.
struct Field {
  std::string name;
  int components = 1;                   // 1 (scalar) or 3 (vector) doubles
  const double* values = nullptr;       // components * points of the box, or
  const std::uint8_t* bytes = nullptr;  // one UInt8 per point of the box
};

// A rank's part of the grid: its first point and its size along x, y, z.
struct Box {
  std::array<int, 3> origin{0, 0, 0};
  std::array<int, 3> size{0, 0, 0};
};

// Collective over `comm` (nullptr: one process, MPI not started). Writes `path` (.h5): one
// dataset per field over the whole grid `extent`, each rank writing its `box` (the boxes
// tile the grid), and the attribute "step"; then rank 0 writes the XDMF description, `path`
// with .xmf for .h5, naming the step as its time. pk::Error (agreed over the ranks) when a
// file cannot be written.
void write_fields(const mpi::Communicator* comm, const std::string& path, const std::array<int, 3>& extent,
                  const Box& box, const std::vector<Field>& fields, std::int64_t step);

// `path` with its .h5 ending replaced by .xmf.
std::string xdmf_path(const std::string& path);

}  // namespace pk::hdf5
