#pragma once
// VTK ImageData (.vti) output that ParaView opens: one point per lattice cell (spacing 1,
// origin 0), with point arrays density (Float64), velocity (3 x Float64) and cell_type
// (UInt8: 0 fluid, 1 solid, 2 inlet, 3 outlet), stored raw-appended (binary, little or big
// endian as the host is) after the XML header. Distributed runs write one piece per rank
// and a .pvti that names them. Every file is written to a temporary name and renamed, so
// a reader never sees half a file.
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>

#include <array>
#include <string>
#include <vector>

namespace pk::lbm {

// Writes `fields` of `geometry` to `path`. Throws pk::Error when the sizes differ or the
// file cannot be written.
void write_vti(const std::string& path, const Geometry& geometry, const HostFields& fields);

// A box of cells of a geometry: its first cell and its size in x, y, z.
struct Piece {
  std::array<int, 3> origin{0, 0, 0};
  std::array<int, 3> size{0, 0, 0};
};

// Writes the fields of one piece of `geometry` (fields.nx/ny/nz: the piece's size) to
// `path`, with the whole geometry's extent, as a .pvti piece.
void write_vti_piece(const std::string& path, const Geometry& geometry, const std::array<int, 3>& origin,
                     const HostFields& fields);

// Writes the .pvti that assembles `pieces` of `geometry` at `step`; piece_files[i] (a
// path relative to the .pvti's folder) holds pieces[i].
void write_pvti(const std::string& path, const Geometry& geometry, std::int64_t step, const std::vector<Piece>& pieces,
                const std::vector<std::string>& piece_files);

}  // namespace pk::lbm
