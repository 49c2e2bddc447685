#pragma once
// VTK ImageData (.vti) output that ParaView opens: one point per lattice cell (spacing 1,
// origin 0), with point arrays density (Float64), velocity (3 x Float64) and cell_type
// (UInt8: 0 fluid, 1 solid, 2 inlet, 3 outlet), stored raw-appended (binary, little or big
// endian as the host is) after the XML header.
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>

#include <string>

namespace pk::lbm {

// Writes `fields` of `geometry` to `path`. Throws pk::Error when the sizes differ or the
// file cannot be written.
void write_vti(const std::string& path, const Geometry& geometry, const HostFields& fields);

}  // namespace pk::lbm
