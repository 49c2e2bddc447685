// Core file handling: files written whole or not at all, the shared column-file reader, and
// programs started without a shell.
#include <pk/app/process.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/error.hpp>
#include <pk/core/input_file.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

fs::path fresh_directory(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("pk-tests-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The error message of body(), or "" when it throws none.
template <class Body>
std::string error_of(const Body& body) {
  try {
    body();
  } catch (const pk::Error& e) {
    return e.what();
  }
  return "";
}

TEST(AtomicFile, WritesTheContentAndLeavesNoTemporaryFile) {
  const auto dir = fresh_directory("atomic");
  const auto path = (dir / "out.txt").string();
  pk::write_file(path, [](std::ostream& out) { out << "first\n"; });
  pk::write_file(path, [](std::ostream& out) { out << "second\n"; });
  EXPECT_EQ(contents(path), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFailedWriteKeepsTheOldFileAndLeavesNothingElse) {
  const auto dir = fresh_directory("atomic-fail");
  const auto path = (dir / "out.txt").string();
  pk::write_file(path, [](std::ostream& out) { out << "whole\n"; });
  EXPECT_THROW(pk::write_file(path,
                              [](std::ostream& out) {
                                out << "half";
                                throw pk::Error("interrupted while writing");
                              }),
               pk::Error);
  EXPECT_EQ(contents(path), "whole\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFullDeviceIsAnError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  const std::string message =
      error_of([] { pk::write_file("/dev/full", [](std::ostream& out) { out << std::string(1 << 16, 'x'); }); });
  EXPECT_EQ(message, "writing '/dev/full' failed (disk full?)");
}

TEST(AtomicFile, AMissingDirectoryIsAnError) {
  EXPECT_EQ(error_of([] { pk::write_file("/nonexistent-pk/out.txt", [](std::ostream& out) { out << 1; }); }),
            "cannot write '/nonexistent-pk/out.txt': No such file or directory");
}

TEST(ColumnFile, ReadsRowsSkippingCommentsAndBlankLines) {
  const auto dir = fresh_directory("columns");
  const auto path = (dir / "data.txt").string();
  std::ofstream(path) << "# x y z\n\n1 2 3  # trailing comment\n\t4.5 -6e-1 7\n";
  const auto rows = pk::read_columns(path, 3, "x y z");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].line, 3);
  EXPECT_EQ(rows[0].values, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(rows[1].line, 4);
  EXPECT_EQ(rows[1].values, (std::vector<double>{4.5, -0.6, 7}));
  fs::remove_all(dir);
}

TEST(ColumnFile, RefusesAMalformedLineNamingFileAndLine) {
  const auto dir = fresh_directory("columns-bad");
  const auto path = (dir / "data.txt").string();
  const std::pair<std::string, std::string> cases[] = {
      {"1 2 3 4\n", "expected 3 numbers 'x y z', found 4"},
      {"1 2\n", "expected 3 numbers 'x y z', found 2"},
      {"1 2 3x\n", "expected 3 numbers 'x y z', found '3x'"},
      {"1 2 nan\n", "'nan' is not a finite number"},
      {std::string("1 2 \x01\xff", 6) + "\n",
       "expected 3 numbers 'x y z', found '?"
       "?'"},
  };
  for (const auto& [text, what] : cases) {
    std::ofstream(path) << "# header\n" << text;
    EXPECT_EQ(error_of([&] { pk::read_columns(path, 3, "x y z"); }), path + ":2: " + what) << text;
  }
  EXPECT_EQ(error_of([] { pk::read_columns("/nonexistent-pk/data.txt", 3, "x y z"); }),
            "/nonexistent-pk/data.txt: cannot be opened (No such file or directory)");
  fs::remove_all(dir);
}

TEST(InputFile, ReadsARegularFileWhole) {
  const auto dir = fresh_directory("input");
  const auto path = (dir / "data.txt").string();
  const std::string text("1 2 3\n\0binary\xff", 14);
  std::ofstream(path, std::ios::binary) << text;
  EXPECT_EQ(pk::read_input_file(path), text);
  EXPECT_EQ(pk::read_input_file(path, text.size()), text);
  fs::remove_all(dir);
}

TEST(InputFile, RefusesWhatIsNotARegularFileAtOnce) {
  const auto dir = fresh_directory("input-kinds");
  const auto fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: reading it would block for ever.
  EXPECT_EQ(error_of([&] { pk::read_input_file(fifo); }), fifo + ": is a FIFO, not a regular file");
  EXPECT_EQ(error_of([&] { pk::read_input_file(dir.string(), pk::max_input_bytes, "--data x"); }),
            "--data x: is a directory, not a regular file");
  if (fs::exists("/dev/zero"))
    EXPECT_EQ(error_of([] { pk::read_columns("/dev/zero", 3, "x y z"); }),
              "/dev/zero: is a character device, not a regular file");
  EXPECT_EQ(error_of([] { pk::read_input_file("/nonexistent-pk/x"); }),
            "/nonexistent-pk/x: cannot be opened (No such file or directory)");
  fs::remove_all(dir);
}

TEST(InputFile, RefusesAFileLargerThanItsBound) {
  const auto dir = fresh_directory("input-big");
  const auto path = (dir / "big.txt").string();
  std::ofstream(path) << std::string(100, '1');
  EXPECT_EQ(error_of([&] { pk::read_input_file(path, 64); }),
            path + ": holds 100 bytes, more than the 64 bytes an input file may hold here");
  {
    std::ofstream sparse(path);  // 3 GB that take no disk: refused from its size, unread
  }
  fs::resize_file(path, 3000000000);
  EXPECT_EQ(error_of([&] { pk::read_input_file(path); }),
            path + ": holds 3 GB, more than the 1.07 GB an input file may hold here");
  fs::remove_all(dir);
}

TEST(Process, ProbesSucceedOrFailQuietly) {
  EXPECT_TRUE(pk::program_succeeds({"true"}));
  EXPECT_FALSE(pk::program_succeeds({"false"}));
  EXPECT_FALSE(pk::program_succeeds({"ls", "/nonexistent-pk"}));  // its complaint goes to /dev/null
  EXPECT_FALSE(pk::program_succeeds({"pk-no-such-program"}));
}

// Kokkos started before the tests, so the setting is only read back, not used.
TEST(Process, GpuKernelsLoadAtStartUnlessTheUserChose) {
  const char* before = std::getenv("CUDA_MODULE_LOADING");
  const std::string kept = before ? before : "";
  ::unsetenv("CUDA_MODULE_LOADING");
  pk::load_gpu_kernels_at_start();
  EXPECT_STREQ(std::getenv("CUDA_MODULE_LOADING"), "EAGER");
  ::setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  pk::load_gpu_kernels_at_start();
  EXPECT_STREQ(std::getenv("CUDA_MODULE_LOADING"), "LAZY");
  if (before)
    ::setenv("CUDA_MODULE_LOADING", kept.c_str(), 1);
  else
    ::unsetenv("CUDA_MODULE_LOADING");
}

TEST(Process, ArgumentsReachTheProgramVerbatim) {
  const auto dir = fresh_directory("process");
  const std::string name = (dir / "it's; touch injected").string();
  EXPECT_EQ(pk::run_program({"touch", name}), 0);
  EXPECT_TRUE(fs::exists(name));
  EXPECT_FALSE(fs::exists("injected"));
  EXPECT_FALSE(fs::exists(dir / "injected"));
  EXPECT_EQ(pk::run_program({"false"}), 1);
  EXPECT_THROW(pk::run_program({"pk-no-such-program"}), pk::Error);
  fs::remove_all(dir);
}

}  // namespace
