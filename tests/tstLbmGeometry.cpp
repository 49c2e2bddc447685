// Flag fields and run parameters: what the solver accepts and the errors it gives otherwise.
#include <pk/core/error.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/vti.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace pk::lbm;

// Expects `f` to throw pk::Error whose message contains `part`.
template <class F>
void expect_error(F&& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const pk::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

const std::string good_header = "pk-lbm-flags 1\n# a 4 x 3 x 1 channel, walls in y\nsize 4 3 1\nperiodic 0 0 1\ndata\n";

TEST(LbmGeometry, BoxChannelHasWallsInletAndOutlet) {
  const Geometry g = box_channel(10, 4, 3);
  EXPECT_EQ(g.nx(), 10);
  EXPECT_EQ(g.ny(), 6);
  EXPECT_EQ(g.nz(), 5);
  EXPECT_EQ(g.count(CellType::inlet), 12);
  EXPECT_EQ(g.count(CellType::outlet), 12);
  EXPECT_EQ(g.count(CellType::fluid), 8 * 12);
  EXPECT_EQ(g.at(0, 2, 2), CellType::inlet);
  EXPECT_EQ(g.at(9, 2, 2), CellType::outlet);
  EXPECT_EQ(g.at(5, 0, 2), CellType::solid);
  EXPECT_EQ(g.at(5, 2, 4), CellType::solid);
  EXPECT_EQ((g.boundary_normal(0, 1, 1)), (std::array<int, 3>{1, 0, 0}));
  EXPECT_EQ((g.boundary_normal(9, 1, 1)), (std::array<int, 3>{-1, 0, 0}));
  EXPECT_NO_THROW(g.validate());
}

TEST(LbmGeometry, FlagTextIsParsed) {
  const Geometry g = parse_flag_text(good_header + "####\ni..o\n####\n");
  EXPECT_EQ(g.nx(), 4);
  EXPECT_EQ(g.ny(), 3);
  EXPECT_EQ(g.nz(), 1);
  EXPECT_FALSE(g.periodic(0));
  EXPECT_TRUE(g.periodic(2));
  EXPECT_EQ(g.at(0, 1, 0), CellType::inlet);
  EXPECT_EQ(g.at(3, 1, 0), CellType::outlet);
  EXPECT_EQ(g.at(1, 1, 0), CellType::fluid);
  EXPECT_EQ(g.at(2, 0, 0), CellType::solid);
}

TEST(LbmGeometry, FlagFileRoundTrips) {
  const auto path = (std::filesystem::temp_directory_path() / "pk-lbm-roundtrip.flags").string();
  const Geometry g = box_channel(5, 3, 2);
  write_flag_file(g, path);
  const Geometry back = read_flag_file(path);
  EXPECT_EQ(back.cells(), g.cells());
  EXPECT_EQ(back.nx(), g.nx());
  EXPECT_EQ(back.periodic(1), g.periodic(1));
  std::remove(path.c_str());
}

TEST(LbmGeometry, BadFlagFilesAreRejected) {
  expect_error([] { read_flag_file("/nonexistent/dir/x.flags"); }, "cannot be opened");
  expect_error([] { parse_flag_text("P6\nsize 1 1 1\nperiodic 0 0 0\ndata\n."); }, "not 'pk-lbm-flags 1'");
  expect_error([] { parse_flag_text("pk-lbm-flags 2\nsize 1 1 1\nperiodic 0 0 0\ndata\n."); }, "version 2");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 4 3\nperiodic 0 0 0\ndata\n."); },
               "'size NX NY NZ' is malformed");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 4 0 3\nperiodic 0 0 0\ndata\n."); },
               "size 0 is out of range");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 4 -3 3\nperiodic 0 0 0\ndata\n."); },
               "size -3 is out of range");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 1024 1024 4096\nperiodic 0 0 0\ndata\n"); },
               "cells is more than");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 1 1 1\nperiodic 0 2 0\ndata\n."); }, "must be 0 or 1");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 1 1 1\nperiodic 0 0 0\n."); }, "line 'data' is missing");
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 1 1 1\n"); }, "header is incomplete");
  expect_error([] { parse_flag_text(good_header + "####\ni.xo\n####\n"); }, "symbol 'x' at cell 6");
  expect_error([] { parse_flag_text(good_header + "####\ni..o\n###\n"); }, "data holds 11 cells, size declares 12");
  expect_error([] { parse_flag_text(good_header + "####\ni..o\n#####\n"); }, "more than the 12 cells");
  expect_error([] { parse_flag_text(good_header + "####\n####\n####\n"); }, "no fluid, inlet or outlet cell");
  // an inlet in the middle of the box, and one on a corner (two faces)
  expect_error([] { parse_flag_text(good_header + "####\n.i.o\n####\n"); }, "lies on 0 non-periodic faces");
  expect_error([] { parse_flag_text(good_header + "i###\n...o\n####\n"); }, "lies on 2 non-periodic faces");
  // a pressure cell on a periodic face has no outside to rebuild
  expect_error([] { parse_flag_text("pk-lbm-flags 1\nsize 4 3 1\nperiodic 1 0 1\ndata\n####\ni..o\n####\n"); },
               "lies on 0 non-periodic faces");
}

TEST(LbmParameters, OutOfRangeParametersAreRejected) {
  const Geometry channel = box_channel(8, 4, 4);
  Parameters p;
  EXPECT_NO_THROW(validate(p, channel));
  p.tau = 0.5;
  expect_error([&] { validate(p, channel); }, "tau = 0.5: the relaxation time must be > 0.5");
  p.tau = 0.3;
  expect_error([&] { validate(p, channel); }, "must be > 0.5");
  p = Parameters{};
  p.initial_velocity = {0.2, 0, 0};  // Mach 0.35
  expect_error([&] { validate(p, channel); }, "initial velocity has Mach number 0.34");
  p = Parameters{};
  p.inlet_density = 1.05;  // Bernoulli: Mach sqrt(0.1) = 0.32
  expect_error([&] { validate(p, channel); }, "can drive the flow to Mach 0.31");
  p.max_mach = 0.5;
  EXPECT_NO_THROW(validate(p, channel));
  // without inlet cells the inlet density drives nothing
  EXPECT_NO_THROW(validate(p, periodic_box(4, 4, 4)));
  p = Parameters{};
  p.outlet_density = -1;
  expect_error([&] { validate(p, channel); }, "outlet density -1 must be positive");
  p = Parameters{};
  p.check_interval = -3;
  expect_error([&] { validate(p, channel); }, "health-check interval -3");
  expect_error([] { Geometry(0, 4, 4); }, "every side must be at least 1 cell");
  expect_error([] { box_channel(1, 4, 4); }, "need length >= 2");
}

// The .vti file: XML header, then raw-appended blocks [UInt64 bytes][data] at the offsets
// the header names, counted from the byte after '_'.
TEST(LbmVti, AppendedBlocksHoldTheFields) {
  const Geometry g = box_channel(3, 2, 1);  // 3 x 4 x 3 cells
  HostFields f;
  f.nx = g.nx(), f.ny = g.ny(), f.nz = g.nz(), f.step = 42;
  const std::size_t n = g.cell_count();
  for (std::size_t c = 0; c < n; ++c) {
    f.density.push_back(1 + 0.001 * c);
    for (int k = 0; k < 3; ++k) f.velocity.push_back(0.01 * c + k);
  }
  const auto path = (std::filesystem::temp_directory_path() / "pk-lbm-test.vti").string();
  write_vti(path, g, f);
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  EXPECT_NE(text.find("WholeExtent=\"0 2 0 3 0 2\""), std::string::npos);
  EXPECT_NE(text.find(">42</DataArray>"), std::string::npos);
  const std::size_t base =
      text.find("<AppendedData encoding=\"raw\">\n_") + std::strlen("<AppendedData encoding=\"raw\">\n_");
  auto block = [&](std::size_t offset, std::size_t expected_bytes) {
    std::uint64_t bytes = 0;
    std::memcpy(&bytes, text.data() + base + offset, 8);
    EXPECT_EQ(bytes, expected_bytes);
    return text.data() + base + offset + 8;
  };
  const std::size_t velocity_offset = 8 + 8 * n, type_offset = velocity_offset + 8 + 24 * n;
  EXPECT_NE(text.find("Name=\"velocity\" NumberOfComponents=\"3\" format=\"appended\" offset=\"" +
                      std::to_string(velocity_offset) + "\""),
            std::string::npos);
  EXPECT_NE(text.find("Name=\"cell_type\" format=\"appended\" offset=\"" + std::to_string(type_offset) + "\""),
            std::string::npos);
  std::vector<double> density(n), velocity(3 * n);
  std::memcpy(density.data(), block(0, 8 * n), 8 * n);
  std::memcpy(velocity.data(), block(velocity_offset, 24 * n), 24 * n);
  const char* types = block(type_offset, n);
  EXPECT_EQ(density, f.density);
  EXPECT_EQ(velocity, f.velocity);
  for (std::size_t c = 0; c < n; ++c) EXPECT_EQ(types[c], static_cast<char>(g.cells()[c])) << c;
  EXPECT_EQ(text.substr(base + type_offset + 8 + n), "\n  </AppendedData>\n</VTKFile>\n");
  HostFields wrong = f;
  wrong.density.pop_back();
  expect_error([&] { write_vti(path, g, wrong); }, "do not match");
  std::remove(path.c_str());
}

// A distributed run's output: pieces with the whole extent, and a .pvti naming them.
TEST(LbmVti, PiecesAndTheirIndex) {
  const Geometry g = box_channel(4, 1, 1);  // 4 x 3 x 3
  const auto folder = std::filesystem::temp_directory_path();
  HostFields upper;
  upper.nx = 2, upper.ny = 3, upper.nz = 3, upper.step = 7;
  upper.density.assign(18, 1.0);
  upper.velocity.assign(54, 0.0);
  const std::string piece = (folder / "pk-test-piece-1.vti").string(), index = (folder / "pk-test.pvti").string();
  write_vti_piece(piece, g, {2, 0, 0}, upper);
  write_pvti(index, g, 7, {Piece{{0, 0, 0}, {2, 3, 3}}, Piece{{2, 0, 0}, {2, 3, 3}}},
             {"pk-test-piece-0.vti", "pk-test-piece-1.vti"});
  auto text_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  };
  const std::string piece_text = text_of(piece), index_text = text_of(index);
  EXPECT_NE(piece_text.find("WholeExtent=\"0 3 0 2 0 2\""), std::string::npos);
  EXPECT_NE(piece_text.find("<Piece Extent=\"2 3 0 2 0 2\">"), std::string::npos);
  EXPECT_NE(index_text.find("<Piece Extent=\"0 1 0 2 0 2\" Source=\"pk-test-piece-0.vti\"/>"), std::string::npos);
  EXPECT_NE(index_text.find("<Piece Extent=\"2 3 0 2 0 2\" Source=\"pk-test-piece-1.vti\"/>"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(piece + ".tmp"));
  expect_error([&] { write_vti_piece(piece, g, {3, 0, 0}, upper); }, "do not match");  // reaches past x = 3
  std::remove(piece.c_str());
  std::remove(index.c_str());
}

}  // namespace
