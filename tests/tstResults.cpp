#include <pk/app/results.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/error.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::filesystem::path fresh_directory(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("pk-tests-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

TEST(Results, JsonHoldsEveryKeyAndTheMetrics) {
  const auto dir = fresh_directory("results");
  pk::ResultRecord record{"lbm",
                          "aa-fp32-128",
                          "openmp",
                          "test CPU (2 threads)",
                          "pk-bench --kernel lbm",
                          {{"mlups", 1234.5}, {"roofline_fraction", 0.875}},
                          false,
                          "mlups",
                          "copy bw / bytes per update"};
  const std::string path = pk::write_result(record, (dir / "nested").string());
  EXPECT_EQ(std::filesystem::path(path).filename(), "lbm-aa-fp32-128-openmp.json");

  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json.at("kernel"), "lbm");
  EXPECT_EQ(json.at("case"), "aa-fp32-128");
  EXPECT_EQ(json.at("space"), "openmp");
  EXPECT_EQ(json.at("device"), "test CPU (2 threads)");
  EXPECT_EQ(json.at("command"), "pk-bench --kernel lbm");
  EXPECT_EQ(json.at("commit"), pk::build_commit());
  EXPECT_EQ(json.at("kokkos").at("version"), pk::kokkos_version());
  EXPECT_EQ(json.at("kokkos").at("patches"), pk::kokkos_patches());
  EXPECT_EQ(json.at("host_simd_bytes").at("compiled"), pk::compiled_simd_bytes());
  EXPECT_EQ(json.at("host_simd_bytes").at("cpu"), pk::cpu_simd_bytes());
  const pk::HostTopology topology = pk::host_topology();
  EXPECT_EQ(json.at("host").at("cpu"), pk::host_cpu_model());
  EXPECT_EQ(json.at("host").at("cores"), topology.cores);
  EXPECT_EQ(json.at("host").at("cpus"), topology.cpus);
  EXPECT_EQ(json.at("host").at("l3_bytes"), topology.l3_bytes);
  EXPECT_GE(topology.l3_bytes, 0);
  EXPECT_TRUE(std::regex_match(json.at("date").get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_EQ(json.at("figure"), "mlups");
  EXPECT_EQ(json.at("limit"), "copy bw / bytes per update");
  EXPECT_FALSE(json.contains("interrupted"));
  EXPECT_EQ(json.at("metrics").size(), 2u);
  EXPECT_DOUBLE_EQ(json.at("metrics").at("mlups"), 1234.5);
  EXPECT_DOUBLE_EQ(json.at("metrics").at("roofline_fraction"), 0.875);
  std::filesystem::remove_all(dir);
}

// Only the CPUs asked for count, not the machine's sum on the line "cpu  ..."; steal is the
// eighth number; a line cut short, or with the name alone, is left out.
TEST(Results, CpuTimeSumsTheStealOfTheCpusAskedFor) {
  std::istringstream proc_stat(
      "cpu  2 0 0 0 0 0 0 900 0 0\n"
      "cpu0 100 5 20 800 10 1 2 12 0 0\n"
      "cpu1 200 0 40 700 0 0 0 60 0 0\n"
      "cpu2 50 0 10\n"
      "cpu3 1 1 1 1 1 1 1 1 0 0\n"
      "cpu4\n"
      "intr 12345 0 0\n");
  const pk::CpuTime time = pk::cpu_time(proc_stat, {0, 1, 2, 4});
  EXPECT_EQ(time.total, 950 + 1000);
  EXPECT_EQ(time.stolen, 12 + 60);
}

TEST(Results, StolenShareIsOfTheTimeBetweenTwoReadings) {
  EXPECT_DOUBLE_EQ(pk::stolen_share({1000, 10}, {1400, 110}), 0.25);
  EXPECT_DOUBLE_EQ(pk::stolen_share({1000, 10}, {1000, 10}), -1.0);  // no time counted
  EXPECT_DOUBLE_EQ(pk::stolen_share({}, {}), -1.0);                  // no /proc/stat
  const pk::CpuTime now = pk::cpu_time();
  EXPECT_GE(now.total, now.stolen);
  EXPECT_GE(now.stolen, 0);
}

// A bootstrapped Kokkos carries every patch of deps/patches/kokkos-<version>, and the records
// say so; any other Kokkos carries none of ours.
TEST(Results, KokkosPatchesAreThoseTheBootstrapApplied) {
  EXPECT_TRUE(std::regex_match(pk::kokkos_version(), std::regex(R"(\d+\.\d+\.\d\d)")));
  std::vector<std::string> expected;
  if (PK_TEST_KOKKOS_BOOTSTRAPPED) {
    const auto folder = std::filesystem::path(PK_TEST_PATCH_ROOT) / ("kokkos-" + pk::kokkos_version());
    ASSERT_TRUE(std::filesystem::is_directory(folder)) << folder;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      if (entry.path().extension() == ".patch") expected.push_back(entry.path().stem().string());
    std::sort(expected.begin(), expected.end());
    ASSERT_FALSE(expected.empty());
  }
  EXPECT_EQ(pk::kokkos_patches(), expected);
}

// A binary runs only on a CPU with the instructions it was compiled for, so the CPU's SIMD is at
// least as wide as the build's; each is one of the widths records can name.
TEST(Results, TheCpuHasAtLeastTheSimdTheHostCodeWasBuiltFor) {
  for (const int bytes : {pk::compiled_simd_bytes(), pk::cpu_simd_bytes()})
    EXPECT_TRUE(bytes == 16 || bytes == 32 || bytes == 64) << bytes;
  EXPECT_GE(pk::cpu_simd_bytes(), pk::compiled_simd_bytes());
}

TEST(Results, NonFiniteMetricIsAnError) {
  const auto dir = fresh_directory("nan");
  pk::ResultRecord record{"k", "c", "openmp", "d", "cmd", {{"seconds", std::nan("")}}};
  EXPECT_THROW(pk::write_result(record, dir.string()), pk::Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "k-c-openmp.json"));
  std::filesystem::remove_all(dir);
}

TEST(Results, UnwritableDirectoryIsAnError) {
  pk::ResultRecord record{"k", "c", "openmp", "d", "cmd", {{"seconds", 1.0}}};
  EXPECT_THROW(pk::write_result(record, "/proc/pk-cannot-write-here"), pk::Error);
}

}  // namespace
