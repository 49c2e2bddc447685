#include <pk/besselk/fit_journal.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/input_file.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace pk::besselk {

namespace {

constexpr const char* magic = "# pk-matern fit journal 1";

// Numbers in C's hexadecimal notation: read back to the same bits, so that a recalled point
// is the point BOBYQA asks for.
std::string exact(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

}  // namespace

FitJournal::FitJournal(std::string identity) : identity_(std::move(identity)) {}

void FitJournal::read(const std::string& path) {
  std::istringstream in(read_input_file(path, max_input_bytes, "--restart " + path));
  std::string line;
  require(std::getline(in, line) && line == magic, "--restart ", path, ": not a pk-matern fit journal");
  require(std::getline(in, line) && line == "data " + identity_, "--restart ", path, ": a journal of other data (",
          line, "; this run: data ", identity_, ")");
  for (int number = 3; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::vector<double> numbers;
    for (std::string field; fields >> field;) {
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(field.c_str(), &end);
      if (*end != '\0' || errno == ERANGE || std::isnan(value))
        throw file_error(path, number, "not a number: " + field);
      numbers.push_back(value);
    }
    if (numbers.size() != 3 && numbers.size() != 4)
      throw file_error(path, number, "expected 2 or 3 parameters and a log-likelihood");
    const double value = numbers.back();
    numbers.pop_back();
    recalled_.emplace(numbers, value);
    if (values_.emplace(numbers, value).second) order_.push_back(numbers);
  }
}

void FitJournal::attach(OptimizerSettings& settings, const std::string& path) {
  settings.recall = [this](const Parameters& at) -> std::optional<double> {
    const auto found = recalled_.find(at);
    if (found == recalled_.end()) return std::nullopt;
    ++recalled_count_;
    return found->second;
  };
  if (path.empty()) return;
  settings.progress = [this, path, shown = settings.progress](int evaluations, const Parameters& at, double value) {
    if (shown) shown(evaluations, at, value);
    // A NaN evaluation is the lowest likelihood to BOBYQA, as -inf is (optimize.cpp).
    if (values_.emplace(at, std::isnan(value) ? -HUGE_VAL : value).second) {
      order_.push_back(at);
      write(path);
    }
  };
}

void FitJournal::write(const std::string& path) const {
  write_file(path, [&](std::ostream& out) {
    out << magic << "\ndata " << identity_ << '\n';
    for (const Parameters& at : order_) {
      for (const double p : at) out << exact(p) << ' ';
      out << exact(values_.at(at)) << '\n';
    }
  });
}

}  // namespace pk::besselk
