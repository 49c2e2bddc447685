#include <pk/core/column_file.hpp>
#include <pk/core/input_file.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace pk {

namespace {

// A token as a message can show it: short, and '?' for bytes that are not printable text.
std::string shown(std::string token) {
  if (token.size() > 24) token = token.substr(0, 20) + "...";
  for (char& c : token)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return token;
}

}  // namespace

Error file_error(const std::string& path, int line, const std::string& what) {
  return Error(path + ":" + std::to_string(line) + ": " + what);
}

std::vector<ColumnRow> read_columns(const std::string& path, int columns, const std::string& layout,
                                    bool beyond_range) {
  return parse_columns(read_input_file(path), path, columns, layout, beyond_range);
}

std::vector<ColumnRow> parse_columns(const std::string& text, const std::string& source, int columns,
                                     const std::string& layout, bool beyond_range) {
  std::istringstream in(text);
  const std::string expected = "expected " + std::to_string(columns) + " numbers '" + layout + "'";
  std::vector<ColumnRow> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line.erase(std::min(line.find('#'), line.size()));
    std::istringstream fields(line);
    ColumnRow row{number, {}};
    for (std::string token; fields >> token;) {
      char* end = nullptr;
      const double value = std::strtod(token.c_str(), &end);
      if (end != token.c_str() + token.size())
        throw file_error(source, number, expected + ", found '" + shown(token) + "'");
      if (std::isnan(value) || (std::isinf(value) && !beyond_range))  // beyond range: strtod gives +-inf
        throw file_error(source, number, "'" + shown(token) + "' is not a finite number");
      row.values.push_back(value);
    }
    if (row.values.empty()) continue;
    if (static_cast<int>(row.values.size()) != columns)
      throw file_error(source, number, expected + ", found " + std::to_string(row.values.size()));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace pk
