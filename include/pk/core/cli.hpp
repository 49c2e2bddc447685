#pragma once
// Command lines of the apps and benchmarks: CLI11 for the program's own options, with
// --kokkos-* options set apart for Kokkos. Needs CLI11 (Debian: libcli11-dev).
#include <pk/core/error.hpp>

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace pk {

// Parses argv into `cli`. Returns the --kokkos-* options for pk::Session, or nothing when
// --help was answered. Throws pk::Error on a bad command line.
inline std::optional<std::vector<std::string>> parse_command_line(CLI::App& cli, int argc, char** argv) {
  std::vector<std::string> own, kokkos;
  for (int i = argc - 1; i > 0; --i) {  // CLI11 takes the arguments in reverse order
    const std::string arg = argv[i];
    (arg.rfind("--kokkos-", 0) == 0 ? kokkos : own).push_back(arg);
  }
  try {
    cli.parse(own);
  } catch (const CLI::CallForHelp&) {
    std::cout << cli.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw Error(std::string(e.what()) + " (see --help)");
  }
  return std::vector<std::string>(kokkos.rbegin(), kokkos.rend());
}

}  // namespace pk
