#include <pk/core/atomic_file.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/error.hpp>
#include <pk/core/input_file.hpp>
#include <pk/lbm/geometry.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

namespace pk::lbm {

namespace {

const char* axis_name(int axis) { return axis == 0 ? "x" : (axis == 1 ? "y" : "z"); }

}  // namespace

char cell_type_symbol(CellType type) {
  switch (type) {
    case CellType::fluid:
      return '.';
    case CellType::solid:
      return '#';
    case CellType::inlet:
      return 'i';
    case CellType::outlet:
      return 'o';
  }
  return '?';
}

Geometry::Geometry(int nx, int ny, int nz, std::array<bool, 3> periodic, CellType fill)
    : extent_{nx, ny, nz}, periodic_(periodic) {
  require(nx >= 1 && ny >= 1 && nz >= 1, "lattice size ", nx, " x ", ny, " x ", nz,
          ": every side must be at least 1 cell");
  const std::int64_t cells = static_cast<std::int64_t>(nx) * ny * nz;
  require(cells <= max_cells, "lattice size ", nx, " x ", ny, " x ", nz, " has ", cells, " cells; at most ", max_cells,
          " are allowed");
  cells_.assign(static_cast<std::size_t>(cells), fill);
}

std::int64_t Geometry::count(CellType type) const { return std::count(cells_.begin(), cells_.end(), type); }

std::array<int, 3> Geometry::boundary_normal(int x, int y, int z) const {
  const int position[3] = {x, y, z};
  std::array<int, 3> normal{0, 0, 0};
  int faces = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (periodic_[axis]) continue;
    if (position[axis] == 0)
      normal[axis] = 1, ++faces;
    else if (position[axis] == extent_[axis] - 1)
      normal[axis] = -1, ++faces;
  }
  // Called for every pressure cell: the message is built only when the check fails.
  require(faces == 1, at(x, y, z) == CellType::inlet ? "inlet" : "outlet", " cell (", x, ", ", y, ", ", z, ") lies on ",
          faces,
          " non-periodic faces of the box; a pressure boundary cell must lie on exactly one "
          "(make the cells on edges and corners solid)");
  return normal;
}

void Geometry::validate() const {
  require(active_cell_count() > 0, "the geometry has no fluid, inlet or outlet cell");
  for (int z = 0; z < nz(); ++z)
    for (int y = 0; y < ny(); ++y)
      for (int x = 0; x < nx(); ++x) {
        const CellType type = at(x, y, z);
        if (type == CellType::inlet || type == CellType::outlet) boundary_normal(x, y, z);
      }
}

Geometry box_channel(int length, int width, int height) {
  require(length >= 2 && width >= 1 && height >= 1, "box channel ", length, " x ", width, " x ", height,
          ": need length >= 2 (inlet and outlet) and a cross-section of at least 1 x 1 fluid cells");
  Geometry g(length, width + 2, height + 2);
  for (int z = 0; z < g.nz(); ++z)
    for (int y = 0; y < g.ny(); ++y)
      for (int x = 0; x < g.nx(); ++x) {
        const bool wall = y == 0 || z == 0 || y == g.ny() - 1 || z == g.nz() - 1;
        g.set(x, y, z,
              wall              ? CellType::solid
              : x == 0          ? CellType::inlet
              : x == length - 1 ? CellType::outlet
                                : CellType::fluid);
      }
  return g;
}

Geometry periodic_box(int nx, int ny, int nz) { return Geometry(nx, ny, nz, {true, true, true}); }

Geometry parse_flag_text(const std::string& text, const std::string& source_name) {
  // A header of four lines, then the cells as symbols: not a column file, but its errors
  // name the place as column files do ("FILE:LINE: what").
  std::istringstream in(text);
  int line_number = 0;
  auto fail = [&](int line, const std::string& what) -> Error {
    return file_error(source_name, line,
                      what +
                          " (expected: 'pk-lbm-flags 1', 'size NX NY NZ', 'periodic PX PY PZ', 'data', then "
                          "NX*NY*NZ of . # i o)");
  };
  std::string line;
  std::vector<std::string> header;
  std::vector<int> header_line;
  while (header.size() < 4 && std::getline(in, line)) {
    ++line_number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    header.push_back(line.substr(first));
    header_line.push_back(line_number);
  }
  if (header.size() < 4) throw fail(line_number, "the header is incomplete");
  {
    std::istringstream magic(header[0]);
    std::string word;
    int version = 0;
    if (!(magic >> word >> version) || word != "pk-lbm-flags")
      throw fail(header_line[0], "the first line is not 'pk-lbm-flags 1'");
    if (version != 1)
      throw fail(header_line[0], "format version " + std::to_string(version) + " is not supported (only 1)");
  }
  long long n[3] = {0, 0, 0};
  {
    std::istringstream size(header[1]);
    std::string word, rest;
    if (!(size >> word >> n[0] >> n[1] >> n[2]) || word != "size" || (size >> rest))
      throw fail(header_line[1], "line 'size NX NY NZ' is malformed: '" + header[1] + "'");
    for (long long v : n)
      if (v < 1 || v > 1 << 20)
        throw fail(header_line[1], "size " + std::to_string(v) + " is out of range [1, 1048576]");
    if (n[0] * n[1] * n[2] > Geometry::max_cells)
      throw fail(header_line[1], "size " + std::to_string(n[0] * n[1] * n[2]) + " cells is more than " +
                                     std::to_string(Geometry::max_cells));
  }
  std::array<bool, 3> periodic{};
  {
    std::istringstream p(header[2]);
    std::string word, rest;
    int v[3] = {-1, -1, -1};
    if (!(p >> word >> v[0] >> v[1] >> v[2]) || word != "periodic" || (p >> rest))
      throw fail(header_line[2], "line 'periodic PX PY PZ' is malformed: '" + header[2] + "'");
    for (int axis = 0; axis < 3; ++axis) {
      if (v[axis] != 0 && v[axis] != 1)
        throw fail(header_line[2], std::string("periodic flag of ") + axis_name(axis) + " must be 0 or 1");
      periodic[axis] = v[axis] == 1;
    }
  }
  {
    std::istringstream d(header[3]);
    std::string word, rest;
    if (!(d >> word) || word != "data" || (d >> rest)) throw fail(header_line[3], "line 'data' is missing");
  }
  const std::int64_t cells = n[0] * n[1] * n[2];
  ++line_number;  // the data start on the line after 'data'
  {
    // Too few symbols are found before the cells are allocated: a short file declaring a
    // large lattice is refused without taking the lattice's memory.
    const std::streamoff data = in.tellg();  // -1 when the header ended the text
    std::int64_t symbols = 0;
    int line = line_number, last_data_line = header_line[3];
    for (std::size_t i = data < 0 ? text.size() : static_cast<std::size_t>(data); i < text.size(); ++i) {
      if (text[i] == '\n') ++line;
      if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r') ++symbols, last_data_line = line;
    }
    if (symbols < cells)
      throw fail(last_data_line,
                 "data holds " + std::to_string(symbols) + " cells, size declares " + std::to_string(cells));
  }
  Geometry geometry(static_cast<int>(n[0]), static_cast<int>(n[1]), static_cast<int>(n[2]), periodic);
  std::int64_t cell = 0;
  char c;
  while (in.get(c)) {
    if (c == '\n') ++line_number;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    CellType type;
    switch (c) {
      case '.':
        type = CellType::fluid;
        break;
      case '#':
        type = CellType::solid;
        break;
      case 'i':
        type = CellType::inlet;
        break;
      case 'o':
        type = CellType::outlet;
        break;
      default:
        throw fail(line_number,
                   "symbol '" + std::string(1, c) + "' at cell " + std::to_string(cell) + " is not one of . # i o");
    }
    if (cell >= cells) throw fail(line_number, "more than the " + std::to_string(cells) + " cells that size declares");
    const int x = static_cast<int>(cell % n[0]), y = static_cast<int>(cell / n[0] % n[1]),
              z = static_cast<int>(cell / n[0] / n[1]);
    geometry.set(x, y, z, type);
    ++cell;
  }
  try {
    geometry.validate();
  } catch (const Error& e) {
    throw Error(source_name + ": " + e.what());  // a fact of the whole grid, not of one line
  }
  return geometry;
}

Geometry read_flag_file(const std::string& path) {
  // 2 GiB: line numbers stay ints, and it holds a lattice of 2e9 cells, more than a GPU can take.
  return parse_flag_text(read_input_file(path, std::numeric_limits<int>::max(), "flag file " + path), path);
}

void write_flag_file(const Geometry& geometry, const std::string& path) {
  write_file(path, [&](std::ostream& out) {
    out << "pk-lbm-flags 1\nsize " << geometry.nx() << ' ' << geometry.ny() << ' ' << geometry.nz() << "\nperiodic "
        << geometry.periodic(0) << ' ' << geometry.periodic(1) << ' ' << geometry.periodic(2) << "\ndata\n";
    for (int z = 0; z < geometry.nz(); ++z)
      for (int y = 0; y < geometry.ny(); ++y) {
        for (int x = 0; x < geometry.nx(); ++x) out << cell_type_symbol(geometry.at(x, y, z));
        out << '\n';
      }
  });
}

}  // namespace pk::lbm
