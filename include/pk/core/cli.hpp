#pragma once
// Command lines of the apps and benchmarks: CLI11 for the program's own options, with
// --kokkos-* options set apart for Kokkos (and checked, see session.hpp). Needs CLI11
// (Debian: libcli11-dev).
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/error.hpp>
#include <pk/core/session.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace pk {

namespace Details {

// A --config file holds "key = value" lines, the keys being long option names; '#' or ';'
// start a comment line. CLI11 skips what it does not understand (unknown keys, sections,
// lines without '='), so that a misspelt key would silently run the default case: refuse.
inline void check_config_file(const CLI::App& cli, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  require(static_cast<bool>(in), "--config " + path + ": cannot be opened");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::any_of(line.begin(), line.end(), [](char c) { return c >= 0 && c < 32 && c != '\t'; }))
      throw file_error(path, number, "not a line of text");
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == ';') continue;
    if (line[first] == '[') throw file_error(path, number, "sections are not supported: write 'key = value' lines");
    const auto equals = line.find('=');
    if (equals == std::string::npos) throw file_error(path, number, "expected 'key = value'");
    const auto last = line.find_last_not_of(" \t", equals - 1);
    const std::string key = last == std::string::npos ? "" : line.substr(first, last - first + 1);
    if (line.find_first_not_of(" \t", equals + 1) == std::string::npos)
      throw file_error(path, number, "'" + key + "' has no value");
    bool known = false;
    for (const CLI::Option* option : cli.get_options())
      if (option != cli.get_config_ptr() && option != cli.get_help_ptr())
        for (const std::string& name : option->get_lnames()) known = known || name == key;
    if (!known) throw file_error(path, number, "unknown key '" + key + "' (keys are the long options without '--')");
  }
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
  if (const CLI::Option* config = cli.get_config_ptr()) {
    const std::string flag = config->get_lnames().front();
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--" + flag && i + 1 < argc) Details::check_config_file(cli, argv[i + 1]);
      if (arg.rfind("--" + flag + "=", 0) == 0) Details::check_config_file(cli, arg.substr(flag.size() + 3));
    }
  }
  try {
    cli.parse(own);
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

// The checkpoint options every long-running program takes (checkpoint_schedule.hpp); `unit`
// names what --checkpoint-every counts ("steps", "CG iterations").
inline void add_checkpoint_options(CLI::App& cli, CheckpointOptions& options, const std::string& unit) {
  cli.add_option("--checkpoint", options.path,
                 "write checkpoints to FILE: on SIGTERM, SIGINT or SIGUSR1, every --checkpoint-every " + unit +
                     " or --checkpoint-seconds, and at the end (docs/jobs.md)");
  cli.add_option("--checkpoint-every", options.every, unit + " between checkpoints (0: not by count)");
  cli.add_option("--checkpoint-seconds", options.seconds, "wall-clock seconds between checkpoints (0: not by time)");
  cli.add_option("--restart", options.restart, "continue the run a checkpoint FILE holds (the same options)");
}

}  // namespace pk
