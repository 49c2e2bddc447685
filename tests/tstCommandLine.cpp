// Command lines: --kokkos-* options checked before Kokkos sees them, and --config files
// refused when CLI11 would skip part of them.
#include <pk/app/cli.hpp>
#include <pk/app/session.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace {

std::string error_of(const std::vector<std::string>& kokkos_args) {
  try {
    pk::check_kokkos_options(kokkos_args);
  } catch (const pk::Error& e) {
    return e.what();
  }
  return "";
}

// The option that sets the thread count in this Kokkos, and the other version's spelling.
const bool kokkos4 = KOKKOS_VERSION >= 40000;
const std::string threads = kokkos4 ? "--kokkos-num-threads" : "--kokkos-threads";
const std::string other_threads = kokkos4 ? "--kokkos-threads" : "--kokkos-num-threads";

TEST(KokkosOptions, ValidOptionsPass) {
  EXPECT_EQ(error_of({threads + "=1", "--kokkos-disable-warnings", "--kokkos-device-id=0", "--kokkos-help"}), "");
  if (kokkos4) {
    EXPECT_EQ(
        error_of({"--kokkos-print-configuration", "--kokkos-tune-internals=No", "--kokkos-map-device-id-by=random"}),
        "");
  } else {
    EXPECT_EQ(error_of({"--kokkos-num-devices=2,1", "--kokkos-numa=1", "--kokkos-tune-internals"}), "");
  }
}

TEST(KokkosOptions, ThreadCountsMustParseFullyAndBeInRange) {
  const long most = 4 * std::max(1u, std::thread::hardware_concurrency());
  const std::string range = ": must be a whole number from 1 to " + std::to_string(most);
  for (const std::string& value :
       std::vector<std::string>{"0", "-1", "4x", "", "1e3", "99999999999999999999", std::to_string(most + 1)})
    EXPECT_EQ(error_of({threads + "=" + value}), threads + "=" + value + range) << value;
  EXPECT_EQ(error_of({threads + "=" + std::to_string(most)}), "");
  EXPECT_EQ(error_of({threads}), threads + " needs a value: " + threads + "=VALUE");
}

TEST(KokkosOptions, OtherVersionsSpellingIsRefusedWithThisOnes) {
  // Each Kokkos ignores the other's thread option (4.6 with a warning), so the run would
  // silently use the default thread count.
  EXPECT_NE(error_of({other_threads + "=2"}).find("unknown Kokkos option '" + other_threads + "'"), std::string::npos);
  EXPECT_NE(error_of({other_threads + "=2"}).find("it reads " + threads), std::string::npos);
  // Kokkos 4 dropped the 3.x names --kokkos-device and --kokkos-ndevices; 3.4 reads them only
  // with a deprecation warning, so neither version takes them.
  EXPECT_NE(error_of({"--kokkos-device=0"}).find("unknown Kokkos option"), std::string::npos);
  EXPECT_NE(error_of({"--kokkos-ndevices=1"}).find("unknown Kokkos option"), std::string::npos);
  if (kokkos4) {
    EXPECT_NE(error_of({"--kokkos-num-devices=1"}).find("unknown Kokkos option"), std::string::npos);
    EXPECT_NE(error_of({"--kokkos-numa=1"}).find("unknown Kokkos option"), std::string::npos);
  } else {
    EXPECT_NE(error_of({"--kokkos-print-configuration"}).find("unknown Kokkos option"), std::string::npos);
    EXPECT_NE(error_of({"--kokkos-map-device-id-by=random"}).find("unknown Kokkos option"), std::string::npos);
  }
}

TEST(KokkosOptions, ValuesAreChecked) {
  EXPECT_EQ(error_of({"--kokkos-device-id=-1"}), "--kokkos-device-id=-1: must be a whole number from 0 to 255");
  EXPECT_NE(error_of({"--kokkos-frobnicate=1"}).find("unknown Kokkos option '--kokkos-frobnicate'"), std::string::npos);
  EXPECT_EQ(error_of({"--kokkos-help=yes"}), "--kokkos-help takes no value");
  if (kokkos4) {
    EXPECT_EQ(error_of({"--kokkos-disable-warnings=maybe"}),
              "--kokkos-disable-warnings=maybe: use yes, no, true, false, 1 or 0");
    EXPECT_EQ(error_of({"--kokkos-map-device-id-by=rank"}), "--kokkos-map-device-id-by=rank: use random or mpi_rank");
  } else {
    EXPECT_EQ(error_of({"--kokkos-disable-warnings=yes"}), "--kokkos-disable-warnings takes no value");
    EXPECT_EQ(error_of({"--kokkos-num-devices=0"}), "--kokkos-num-devices=0: must be a whole number from 1 to 256");
  }
}

// The message check_kokkos_environment() gives with `variable` set to `value` (restored after).
std::string environment_error(const char* variable, const char* value) {
  const char* before = std::getenv(variable);
  const std::string saved = before ? before : "";
  setenv(variable, value, 1);
  std::string message;
  try {
    pk::check_kokkos_environment();
  } catch (const pk::Error& e) {
    message = e.what();
  }
  if (before)
    setenv(variable, saved.c_str(), 1);
  else
    unsetenv(variable);
  return message;
}

TEST(KokkosEnvironment, ValuesKokkosCannotReadAreRefused) {
  const long most = 4 * std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(environment_error("KOKKOS_NUM_THREADS", "abc"),
            "environment variable KOKKOS_NUM_THREADS=abc: must be a whole number from 1 to " + std::to_string(most));
  EXPECT_EQ(environment_error("KOKKOS_NUM_THREADS", "0"),
            "environment variable KOKKOS_NUM_THREADS=0: must be a whole number from 1 to " + std::to_string(most));
  EXPECT_EQ(environment_error("KOKKOS_DEVICE_ID", "abc"),
            "environment variable KOKKOS_DEVICE_ID=abc: must be a whole number from 0 to 255");
  EXPECT_EQ(environment_error("KOKKOS_DISABLE_WARNINGS", "maybe"),
            "environment variable KOKKOS_DISABLE_WARNINGS=maybe: use yes, no, true, false, 1 or 0");
  EXPECT_EQ(environment_error("KOKKOS_NUM_THREADS", "2"), "");
  if (kokkos4) {
    EXPECT_EQ(environment_error("KOKKOS_MAP_DEVICE_ID_BY", "rank"),
              "environment variable KOKKOS_MAP_DEVICE_ID_BY=rank: use random or mpi_rank");
    EXPECT_EQ(environment_error("KOKKOS_VISIBLE_DEVICES", "0,x"),
              "environment variable KOKKOS_VISIBLE_DEVICES=x: must be a whole number from 0 to 255");
    EXPECT_EQ(environment_error("KOKKOS_VISIBLE_DEVICES", "0,1"), "");
  }
}

// A --config file with `text`, parsed by an app with two options.
std::string config_error(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("pk-tests-config-" + std::to_string(::getpid()) + ".ini");
  std::ofstream(path, std::ios::binary) << text;
  CLI::App cli;
  cli.set_config("--config");
  double end_time = 0;
  bool quiet = false;
  cli.add_option("--end-time", end_time);
  cli.add_flag("--quiet", quiet);
  std::string argv0 = "pk", flag = "--config", file = path.string();
  char* argv[] = {argv0.data(), flag.data(), file.data()};
  std::string message;
  try {
    pk::parse_command_line(cli, 3, argv);
  } catch (const pk::Error& e) {
    message = e.what();
    message.replace(0, file.size(), "FILE");
  }
  std::filesystem::remove(path);
  return message;
}

TEST(ConfigFile, KeysAreLongOptionsAndEveryLineIsUnderstood) {
  EXPECT_EQ(config_error("# comment\n; comment\n\nend-time = 2\nquiet = true\n"), "");
  EXPECT_EQ(config_error("end-tme = 2\n"), "FILE:1: unknown key 'end-tme' (keys are the long options without '--')");
  EXPECT_EQ(config_error("quiet = true\n[run]\n"), "FILE:2: sections are not supported: write 'key = value' lines");
  EXPECT_EQ(config_error("end-time 2\n"), "FILE:1: expected 'key = value'");
  EXPECT_EQ(config_error("end-time =\n"), "FILE:1: 'end-time' has no value");
  EXPECT_EQ(config_error(std::string("\x7f"
                                     "ELF\x02\x01\x01\0",
                                     8)),
            "FILE:1: not a line of text");
}

}  // namespace
