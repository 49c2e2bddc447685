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

}  // namespace

void write_vti(const std::string& path, const Geometry& geometry, const HostFields& fields) {
  const std::size_t cells = static_cast<std::size_t>(geometry.cell_count());
  require(fields.nx == geometry.nx() && fields.ny == geometry.ny() && fields.nz == geometry.nz() &&
              fields.density.size() == cells && fields.velocity.size() == 3 * cells,
          "write_vti: the fields do not match the geometry's size");
  const std::uint64_t density_bytes = cells * sizeof(double), velocity_bytes = 3 * density_bytes, header = sizeof(std::uint64_t);
  const std::string extent = "0 " + std::to_string(geometry.nx() - 1) + " 0 " + std::to_string(geometry.ny() - 1) +
                             " 0 " + std::to_string(geometry.nz() - 1);
  write_file(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\""
        << (little_endian() ? "LittleEndian" : "BigEndian") << "\" header_type=\"UInt64\">\n"
        << "  <ImageData WholeExtent=\"" << extent << "\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
        << "    <FieldData>\n"
        << "      <DataArray type=\"Int64\" Name=\"step\" NumberOfTuples=\"1\" format=\"ascii\">" << fields.step
        << "</DataArray>\n"
        << "    </FieldData>\n"
        << "    <Piece Extent=\"" << extent << "\">\n"
        << "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n"
        << "        <DataArray type=\"Float64\" Name=\"density\" format=\"appended\" offset=\"0\"/>\n"
        << "        <DataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\" format=\"appended\" offset=\""
        << header + density_bytes << "\"/>\n"
        << "        <DataArray type=\"UInt8\" Name=\"cell_type\" format=\"appended\" offset=\""
        << 2 * header + density_bytes + velocity_bytes << "\"/>\n"
        << "      </PointData>\n"
        << "    </Piece>\n"
        << "  </ImageData>\n"
        << "  <AppendedData encoding=\"raw\">\n_";
    append_block(out, fields.density.data(), cells);
    append_block(out, fields.velocity.data(), 3 * cells);
    append_block(out, reinterpret_cast<const std::uint8_t*>(geometry.cells().data()), cells);
    out << "\n  </AppendedData>\n</VTKFile>\n";
  });
}

}  // namespace pk::lbm
