#pragma once
// Command lines of the apps and benchmarks: CLI11 for the program's own options, with
// --kokkos-* options set apart for Kokkos (and checked, see session.hpp). Needs CLI11
// (Debian: libcli11-dev).
#include <pk/app/checkpoint_options.hpp>
#include <pk/app/session.hpp>
#include <pk/core/details/config_file.hpp>
#include <pk/core/error.hpp>
#include <pk/core/input_file.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace pk {

namespace Details {

// A --config file, read whole (a device or a FIFO is refused) and checked before CLI11 reads it.
inline void check_config_file(const CLI::App& cli, const std::string& path) {
  constexpr std::size_t max_config_bytes = 1 << 20;  // a few dozen options take a few kB
  check_config_text(cli, read_input_file(path, max_config_bytes, "--config " + path), path);
}

}  // namespace Details

// Parses argv into `cli`. Returns the --kokkos-* options for pk::Session, or nothing when
// --help was answered. Throws pk::Error on a bad command line or --config file.
inline std::optional<std::vector<std::string>> parse_command_line(CLI::App& cli, int argc, char** argv) {
  std::vector<std::string> own, kokkos;
  for (int i = argc - 1; i > 0; --i) {  // CLI11 takes the arguments in reverse order
    const std::string arg = argv[i];
    (arg.rfind("--kokkos-", 0) == 0 ? kokkos : own).push_back(arg);
  }
  std::string config_path;
  if (const CLI::Option* config = cli.get_config_ptr()) {
    const std::string flag = config->get_lnames().front();
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--" + flag && i + 1 < argc) config_path = argv[i + 1];
      if (arg.rfind("--" + flag + "=", 0) == 0) config_path = arg.substr(flag.size() + 3);
    }
    if (!config_path.empty()) Details::check_config_file(cli, config_path);
  }
  const std::vector<std::string> given = own;  // CLI11 consumes what it parses
  try {
    cli.parse(own);
    if (!config_path.empty()) Details::resolve_config_paths(cli, given, config_path);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw Error(std::string(e.what()) + " (see --help)");
  }
  std::reverse(kokkos.begin(), kokkos.end());
  check_kokkos_options(kokkos);
  return kokkos;
}

}  // namespace pk
