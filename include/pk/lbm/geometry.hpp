#pragma once
// The flag field: what each lattice cell is (fluid, solid, pressure inlet or outlet), the
// box size and which axes are periodic. Built on the host, validated, then handed to a
// Solver. Cells are numbered x fastest: cell = x + nx * (y + ny * z).
//
// Boundary rules the solver applies to this field:
// - a link from a fluid cell into a solid cell is a half-way bounce-back wall;
// - a link leaving the box along a periodic axis wraps around;
// - a link leaving the box along a non-periodic axis is a bounce-back wall too, except for
//   inlet/outlet cells, whose incoming populations from outside are rebuilt from the
//   prescribed density (pressure boundary). An inlet or outlet cell must therefore lie on
//   exactly one non-periodic face of the box; that face gives its normal.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::lbm {

enum class CellType : std::uint8_t { fluid = 0, solid = 1, inlet = 2, outlet = 3 };

// The character of each cell type in flag files: '.' fluid, '#' solid, 'i' inlet, 'o' outlet.
char cell_type_symbol(CellType type);

class Geometry {
 public:
  // Largest number of cells a geometry may hold (cell indices are 32-bit in kernels).
  static constexpr std::int64_t max_cells = 2147483647;

  // An nx x ny x nz box filled with `fill`. Throws pk::Error for sizes < 1 or too many cells.
  Geometry(int nx, int ny, int nz, std::array<bool, 3> periodic = {false, false, false},
           CellType fill = CellType::fluid);

  int nx() const { return extent_[0]; }
  int ny() const { return extent_[1]; }
  int nz() const { return extent_[2]; }
  int extent(int axis) const { return extent_[axis]; }
  bool periodic(int axis) const { return periodic_[axis]; }
  std::int64_t cell_count() const { return static_cast<std::int64_t>(cells_.size()); }
  std::int64_t cell_index(int x, int y, int z) const {
    return x + static_cast<std::int64_t>(extent_[0]) * (y + static_cast<std::int64_t>(extent_[1]) * z);
  }
  CellType at(int x, int y, int z) const { return cells_[cell_index(x, y, z)]; }
  void set(int x, int y, int z, CellType type) { cells_[cell_index(x, y, z)] = type; }
  const std::vector<CellType>& cells() const { return cells_; }
  std::int64_t count(CellType type) const;
  // Cells the solver updates: every cell that is not solid.
  std::int64_t active_cell_count() const { return cell_count() - count(CellType::solid); }

  // Inward unit normal of an inlet/outlet cell: the one non-periodic box face it lies on,
  // as {nx, ny, nz} in {-1, 0, 1}. Throws pk::Error when the cell is on no such face or on more than one.
  std::array<int, 3> boundary_normal(int x, int y, int z) const;

  // Throws pk::Error naming the first problem: no active cell, or an inlet/outlet cell
  // that is not on exactly one non-periodic face.
  void validate() const;

 private:
  std::array<int, 3> extent_;
  std::array<bool, 3> periodic_;
  std::vector<CellType> cells_;
};

// A rectangular duct along x: fluid inside, one layer of solid cells on the four y and z
// faces, a pressure inlet at x = 0 and outlet at x = length - 1. The fluid cross-section is
// width x height cells; the half-way walls sit half a cell outside it.
Geometry box_channel(int length, int width, int height);

// A fully periodic box of fluid.
Geometry periodic_box(int nx, int ny, int nz);

// Flag files are text, so that a user can write one by hand or from a script:
//   pk-lbm-flags 1          (magic and format version)
//   size NX NY NZ           (positive integers)
//   periodic PX PY PZ       (0 or 1 each)
//   data
//   then NX*NY*NZ symbols among . # i o (fluid, solid, inlet, outlet), x fastest, then y,
//   then z; whitespace between symbols is ignored. Lines starting with '#' before "data"
//   are comments.
// Throws pk::Error with the file name and what is wrong (and the geometry is validated).
Geometry read_flag_file(const std::string& path);
Geometry parse_flag_text(const std::string& text, const std::string& source_name = "flag text");
void write_flag_file(const Geometry& geometry, const std::string& path);

}  // namespace pk::lbm
