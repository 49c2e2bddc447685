#include <pk/app/table.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace pk {

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::add_row(std::vector<std::string> row) {
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(rows_.front().size(), 0);
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t c = 0; c < width.size(); ++c)
      out << std::left << std::setw(static_cast<int>(width[c]) + 2) << rows_[r][c];
    out << '\n';
    if (r == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      out << std::string(total, '-') << '\n';
    }
  }
}

std::string format_number(double value, int digits) {
  std::ostringstream text;
  text << std::setprecision(digits) << value;
  return text.str();
}

}  // namespace pk
