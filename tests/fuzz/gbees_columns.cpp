// libFuzzer target: pk-gbees' column files, a --measurement-file or an --ensemble of initial
// means (the first byte picks which, and the model's dimension), parsed and then checked with
// the run parameters as pk-gbees does (pk/gbees/parameters.hpp).
#include <pk/core/column_file.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/parameters.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  namespace gbees = pk::gbees;
  const int n = 2 + data[0] % (gbees::max_dimension - 1);
  const bool ensemble = data[0] & 0x80;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    gbees::Parameters p = gbees::lorenz96_paper(n);
    if (ensemble) {
      std::string layout = "x1";
      for (int d = 2; d <= n; ++d) layout += " x" + std::to_string(d);
      for (const pk::ColumnRow& row : pk::parse_columns(text, "fuzz-ensemble.txt", n, layout))
        p.member_means.push_back(row.values);
    } else {
      p.measurements = gbees::parse_measurements(text, "fuzz-measurements.txt", n);
      p.end_time = p.measurements.back().time;
    }
    gbees::validate(p, n);
    gbees::initial_cell_count(p);
  } catch (const pk::Error&) {  // a refusal: pk-gbees prints it and exits with 2
  }
  return 0;
}
