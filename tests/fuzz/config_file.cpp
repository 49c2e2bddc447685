// libFuzzer target: pk-gbees' --config files, checked as parse_command_line does
// (pk/core/details/config_file.hpp), read by CLI11 with the program's own options, and turned
// into run parameters (apps/gbees/options.hpp) whose initial cells are counted, as pk-gbees
// does before it plans its memory. The files they name are fuzzed by their own targets; here
// they are left out.
#include "gbees/options.hpp"

#include <pk/core/details/config_file.hpp>
#include <pk/core/error.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  namespace app = pk::gbees::app;
  // One app for every input (building it costs more than a parse), cleared before each.
  static app::Options options;
  static CLI::App cli;
  static const bool once = (app::add_options(cli, options), true);
  (void)once;
  options = app::Options{};
  cli.clear();
  try {
    pk::Details::check_config_text(cli, text, "fuzz.ini");
    std::istringstream in(text);
    cli.parse_from_stream(in);
    options.measurement_file.clear();
    options.ensemble_file.clear();
    pk::gbees::initial_cell_count(app::build_parameters(options, app::model_dimension(options)));
  } catch (const pk::Error&) {        // a refusal: pk-gbees prints it and exits with 2
  } catch (const CLI::ParseError&) {  // parse_command_line turns it into a pk::Error
  }
  return 0;
}
