#pragma once
// A plain text table with aligned columns, for terminal reports.
#include <ostream>
#include <string>
#include <vector>

namespace pk {

class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add_row(std::vector<std::string> row);
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// A number with `digits` significant digits, without trailing noise.
std::string format_number(double value, int digits = 4);

}  // namespace pk
