// The checkpoint format (pk/core/checkpoint.hpp): headers read back as written, every
// truncated or bit-flipped header is refused with pk::Error (never a crash), and files
// written through CheckpointFiles read back whole or are refused.
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

pk::CheckpointHeader example() {
  pk::CheckpointHeader h;
  h.program = "pk-lbm";
  h.space = "openmp";
  h.ranks = 4;
  h.part = "rank 3";
  h.step = 123456789012;
  h.options = {{"tau", "0.8"}, {"lattice", "64x32x32 periodic 000"}, {"empty", ""}};
  h.add_value("time", 0.1);
  h.add_value("count", std::int64_t{-7});
  h.sections = {{"lattice", 1u << 20}, {"state", 24}};
  h.payload_crc32 = 0xdeadbeef;
  return h;
}

TEST(Checkpoint, HeaderReadsBackAsWritten) {
  const pk::CheckpointHeader h = example();
  const std::string text = pk::format_checkpoint_header(h) + "payload bytes follow";
  const pk::CheckpointHeader back = pk::parse_checkpoint_header(text.data(), text.size());
  EXPECT_EQ(back.program, h.program);
  EXPECT_EQ(back.space, h.space);
  EXPECT_EQ(back.ranks, 4);
  EXPECT_EQ(back.part, "rank 3");
  EXPECT_EQ(back.step, h.step);
  EXPECT_EQ(back.options, h.options);
  EXPECT_EQ(back.real_value("time"), 0.1);  // exactly: a hexadecimal float
  EXPECT_EQ(back.integer_value("count"), -7);
  ASSERT_EQ(back.sections.size(), 2u);
  EXPECT_EQ(back.payload_bytes(), (1u << 20) + 24u);
  EXPECT_EQ(back.payload_crc32, 0xdeadbeefu);
  EXPECT_EQ(back.header_bytes, text.size() - std::string("payload bytes follow").size());
  EXPECT_THROW(back.value("missing"), pk::Error);
}

TEST(Checkpoint, EveryTruncatedHeaderIsRefused) {
  const std::string text = pk::format_checkpoint_header(example());
  for (std::size_t size = 0; size < text.size(); ++size)
    EXPECT_THROW(pk::parse_checkpoint_header(text.data(), size), pk::Error) << size << " bytes";
}

TEST(Checkpoint, EveryFlippedBitOfAHeaderIsRefused) {
  const std::string text = pk::format_checkpoint_header(example());
  for (std::size_t i = 0; i < text.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = text;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      EXPECT_THROW(pk::parse_checkpoint_header(bad.data(), bad.size()), pk::Error) << "byte " << i << " bit " << bit;
    }
}

// A header is read only in the form format_checkpoint_header writes (the fuzz target checks
// that every header read is written back byte for byte): lines in their order, numbers
// without sign or leading zeros.
TEST(Checkpoint, HeadersNotAsWrittenAreRefused) {
  const std::string text = pk::format_checkpoint_header(example());
  const auto with_checksum = [](std::string header) {
    header.erase(header.find("header-crc32 "));
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", pk::crc32(header.data(), header.size()));
    return header + "header-crc32 " + hex + "\n";
  };
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string header = text;
    header.replace(header.find(from), from.size(), to);
    return with_checksum(header);
  };
  const std::string same = with_checksum(text);
  ASSERT_EQ(same, text);
  const std::string value_line = "value count -7\n";
  const std::string unordered = replaced("option tau 0.8\n", value_line + "option tau 0.8\n");
  for (const std::string& bad : {replaced("ranks 4", "ranks 04"), replaced("step 1", "step 01"),
                                 replaced("lattice 1048576", "lattice 01048576"), unordered}) {
    EXPECT_THROW(pk::parse_checkpoint_header(bad.data(), bad.size()), pk::Error) << bad;
  }
  const std::string padded = replaced("-7", "-07");
  EXPECT_THROW(pk::parse_checkpoint_header(padded.data(), padded.size()).integer_value("count"), pk::Error);
}

// A checkpoint refused on reading leaves no file open (a program may try several).
TEST(Checkpoint, RefusedFilesAreClosed) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "pk-tst-checkpoint-refused";
  std::ofstream(path, std::ios::binary) << pk::format_checkpoint_header(example()) << "short payload";
  const auto open_files = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{});
  };
  const auto before = open_files();
  for (int i = 0; i < 10; ++i) EXPECT_THROW(pk::CheckpointReader{path.string()}, pk::Error);
  EXPECT_EQ(open_files(), before);
  std::filesystem::remove(path);
}

TEST(Checkpoint, OtherRunsAreRefusedNamingWhatDiffers) {
  const pk::CheckpointHeader h = example();
  pk::CheckpointHeader other = h;
  other.options[0].second = "0.9";
  try {
    pk::require_same_run(h, other, "c.ckpt");
    FAIL() << "another tau was accepted";
  } catch (const pk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("the checkpoint's run has --tau 0.8, this command line --tau 0.9"),
              std::string::npos)
        << e.what();
  }
  other = h;
  other.ranks = 2;
  EXPECT_THROW(pk::require_same_run(h, other, "c.ckpt"), pk::Error);
  other = h;
  other.space = "cuda";
  EXPECT_THROW(pk::require_same_run(h, other, "c.ckpt"), pk::Error);
  EXPECT_NO_THROW(pk::require_same_run(h, h, "c.ckpt"));
}

TEST(Checkpoint, FilesReadBackOrAreRefused) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "pk-tst-checkpoint";
  std::filesystem::remove_all(folder);
  const std::string path = (folder / "run.ckpt").string();
  pk::CheckpointFiles files(path, 1, 0);
  pk::CheckpointHeader h;
  h.program = "pk-test";
  h.space = "openmp";
  h.step = 5;
  h.options = {{"n", "1000"}};
  std::vector<double> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.5 * i;
  h.sections = {{"data", data.size() * sizeof(double)}};
  ASSERT_TRUE(files.write(h, [&](pk::CheckpointWriter& w) { w.write(data.data(), data.size() * sizeof(double)); }));
  EXPECT_FALSE(files.write(h, [](pk::CheckpointWriter&) { FAIL() << "the same step written twice"; }));
  std::vector<double> back(data.size());
  pk::CheckpointHeader expected = h;
  expected.sections.clear();
  pk::CheckpointFiles reader("", 1, 0);
  const pk::CheckpointHeader found =
      reader.read(path, expected, [&](pk::CheckpointReader& r) { r.read(back.data(), back.size() * sizeof(double)); });
  EXPECT_EQ(found.step, 5);
  EXPECT_EQ(back, data);
  // A flipped payload byte fails the checksum; a shorter file is truncated.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (const std::string& bad : {bytes.substr(0, bytes.size() - 1), bytes.substr(0, bytes.size() - 1) + "x"}) {
    std::ofstream(path, std::ios::binary) << bad;
    EXPECT_THROW(reader.read(path, expected,
                             [&](pk::CheckpointReader& r) { r.read(back.data(), back.size() * sizeof(double)); }),
                 pk::Error);
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
