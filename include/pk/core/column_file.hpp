#pragma once
// Text files of numbers in columns, the form of every data file the programs read: '#'
// starts a comment that runs to the end of the line, blank lines are skipped, and every
// other line holds exactly the expected count of finite numbers, separated by blanks.
// Errors name the place as "FILE:LINE: what is wrong".
#include <pk/core/error.hpp>

#include <string>
#include <vector>

namespace pk {

struct ColumnRow {
  int line = 0;  // 1-based line number in the file, for messages
  std::vector<double> values;
};

// The rows of `path` (read through read_input_file), each with `columns` numbers; `layout`
// names them for messages ("x y z"). Throws pk::Error for a file that cannot be read or a
// line that breaks the form. beyond_range: a number outside the double range reads as +-inf
// or 0 (reference tables) instead of being refused.
std::vector<ColumnRow> read_columns(const std::string& path, int columns, const std::string& layout,
                                    bool beyond_range = false);

// The same for the content of a file; `source` names it in messages.
std::vector<ColumnRow> parse_columns(const std::string& text, const std::string& source, int columns,
                                     const std::string& layout, bool beyond_range = false);

// An error at a line of a file: "FILE:LINE: what".
Error file_error(const std::string& path, int line, const std::string& what);

}  // namespace pk
