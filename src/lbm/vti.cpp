#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/lbm/vti.hpp>

#include <cstdint>
#include <cstring>
#include <ostream>

namespace pk::lbm {

namespace {

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// Raw-appended blocks are [UInt64 byte count][bytes].
template <class T>
void append_block(std::ostream& out, const T* data, std::size_t count) {
  const std::uint64_t bytes = count * sizeof(T);
  out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

// VTK's "x0 x1 y0 y1 z0 z1" of a box of points.
std::string extent(const std::array<int, 3>& origin, const std::array<int, 3>& size) {
  std::string text;
  for (int a = 0; a < 3; ++a)
    text += (a ? " " : "") + std::to_string(origin[a]) + " " + std::to_string(origin[a] + size[a] - 1);
  return text;
}

std::array<int, 3> size_of(const Geometry& geometry) { return {geometry.nx(), geometry.ny(), geometry.nz()}; }

// One ImageData file: the whole extent of the geometry and the piece at `origin`.
void write_image(const std::string& path, const Geometry& geometry, const std::array<int, 3>& origin,
                 const HostFields& fields, const std::vector<std::uint8_t>& types) {
  const std::size_t cells = types.size();
  const std::array<int, 3> size = {fields.nx, fields.ny, fields.nz};
  write_file(path, [&](std::ostream& out) {
    const std::uint64_t density_bytes = cells * sizeof(double), velocity_bytes = 3 * density_bytes,
                        header = sizeof(std::uint64_t);
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\""
        << (little_endian() ? "LittleEndian" : "BigEndian") << "\" header_type=\"UInt64\">\n"
        << "  <ImageData WholeExtent=\"" << extent({0, 0, 0}, size_of(geometry))
        << "\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
        << "    <FieldData>\n"
        << "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">" << fields.step
        << "</DataArray>\n"
        << "    </FieldData>\n"
        << "    <Piece Extent=\"" << extent(origin, size) << "\">\n"
        << "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n"
        << "        <DataArray type=\"Float64\" Name=\"density\" format=\"appended\" offset=\"0\"/>\n"
        << "        <DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"appended\" "
           "offset=\""
        << header + density_bytes << "\"/>\n"
        << "        <DataArray type=\"UInt8\" Name=\"cell_type\" format=\"appended\" offset=\""
        << 2 * header + density_bytes + velocity_bytes << "\"/>\n"
        << "      </PointData>\n"
        << "    </Piece>\n"
        << "  </ImageData>\n"
        << "  <AppendedData encoding=\"raw\">\n_";
    append_block(out, fields.density.data(), cells);
    append_block(out, fields.velocity.data(), 3 * cells);
    append_block(out, types.data(), cells);
    out << "\n  </AppendedData>\n</VTKFile>\n";
  });
}

}  // namespace

void write_vti(const std::string& path, const Geometry& geometry, const HostFields& fields) {
  write_vti_piece(path, geometry, {0, 0, 0}, fields);
}

void write_vti_piece(const std::string& path, const Geometry& geometry, const std::array<int, 3>& origin,
                     const HostFields& fields) {
  const std::size_t cells = static_cast<std::size_t>(fields.nx) * fields.ny * fields.nz;
  bool inside = fields.density.size() == cells && fields.velocity.size() == 3 * cells;
  const std::array<int, 3> size = {fields.nx, fields.ny, fields.nz};
  for (int a = 0; a < 3; ++a)
    inside = inside && origin[a] >= 0 && size[a] >= 1 && origin[a] + size[a] <= geometry.extent(a);
  require(inside, "write_vti: the fields do not match the geometry's size");
  std::vector<std::uint8_t> types;
  types.reserve(cells);
  for (int z = 0; z < size[2]; ++z)
    for (int y = 0; y < size[1]; ++y)
      for (int x = 0; x < size[0]; ++x)
        types.push_back(static_cast<std::uint8_t>(geometry.at(origin[0] + x, origin[1] + y, origin[2] + z)));
  write_image(path, geometry, origin, fields, types);
}

void write_pvti(const std::string& path, const Geometry& geometry, std::int64_t step, const std::vector<Piece>& pieces,
                const std::vector<std::string>& piece_files) {
  require(pieces.size() == piece_files.size(), "write_pvti: one file per piece");
  write_file(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\""
        << (little_endian() ? "LittleEndian" : "BigEndian") << "\" header_type=\"UInt64\">\n"
        << "  <PImageData WholeExtent=\"" << extent({0, 0, 0}, size_of(geometry))
        << "\" GhostLevel=\"0\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
        << "    <!-- step " << step << " -->\n"
        << "    <PPointData Scalars=\"density\" Vectors=\"velocity\">\n"
        << "      <PDataArray type=\"Float64\" Name=\"density\"/>\n"
        << "      <PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
        << "      <PDataArray type=\"UInt8\" Name=\"cell_type\"/>\n"
        << "    </PPointData>\n";
    for (std::size_t i = 0; i < pieces.size(); ++i)
      out << "    <Piece Extent=\"" << extent(pieces[i].origin, pieces[i].size) << "\" Source=\"" << piece_files[i]
          << "\"/>\n";
    out << "  </PImageData>\n</VTKFile>\n";
  });
}

}  // namespace pk::lbm
