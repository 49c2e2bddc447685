#pragma once
// The check of a --config file's text, and the data paths it names (pk/app/cli.hpp): free of
// Kokkos, so that the fuzz targets (tests/fuzz) build it alone.
#include <pk/core/column_file.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace pk::Details {

// A --config file holds "key = value" lines, the keys being long option names; '#' or ';'
// start a comment line. CLI11 skips what it does not understand (unknown keys, sections,
// lines without '='), so that a misspelt key would silently run the default case: refuse.
// `source` names the file in messages ("FILE:LINE: what").
inline void check_config_text(const CLI::App& cli, const std::string& text, const std::string& source) {
  std::set<std::string> keys;
  for (const CLI::Option* option : cli.get_options())
    if (option != cli.get_config_ptr() && option != cli.get_help_ptr())
      keys.insert(option->get_lnames().begin(), option->get_lnames().end());
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::any_of(line.begin(), line.end(), [](char c) { return c >= 0 && c < 32 && c != '\t'; }))
      throw file_error(source, number, "not a line of text");
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == ';') continue;
    if (line[first] == '[') throw file_error(source, number, "sections are not supported: write 'key = value' lines");
    const auto equals = line.find('=');
    if (equals == std::string::npos) throw file_error(source, number, "expected 'key = value'");
    const auto last = line.find_last_not_of(" \t", equals - 1);
    const std::string key = last == std::string::npos ? "" : line.substr(first, last - first + 1);
    if (line.find_first_not_of(" \t", equals + 1) == std::string::npos)
      throw file_error(source, number, "'" + key + "' has no value");
    if (!keys.count(key))
      throw file_error(source, number, "unknown key '" + key + "' (keys are the long options without '--')");
  }
}

// A --config file's data paths name files beside it: each option marked input_file_option()
// that the file set (not the command line) to a relative path is taken against the file's
// folder, whatever the working directory.
inline void resolve_config_paths(CLI::App& cli, const std::vector<std::string>& args, const std::string& config) {
  const std::filesystem::path folder = std::filesystem::path(config).parent_path();
  for (CLI::Option* option : cli.get_options()) {
    if (option->get_type_name() != "FILE" || option->count() != 1 || option == cli.get_config_ptr()) continue;
    const std::string name = "--" + option->get_lnames().front();
    const bool on_command_line = std::any_of(
        args.begin(), args.end(), [&](const std::string& arg) { return arg == name || arg.rfind(name + "=", 0) == 0; });
    const std::string value = option->results().front();
    if (on_command_line || value.empty() || std::filesystem::path(value).is_absolute()) continue;
    option->clear();
    option->add_result((folder / value).string());
    option->run_callback();
  }
}

}  // namespace pk::Details

namespace pk {

// Marks an option that names a file to read: a --config file that sets it to a relative path
// means a path relative to itself (parse_command_line).
inline CLI::Option* input_file_option(CLI::Option* option) { return option->type_name("FILE"); }

}  // namespace pk
