#pragma once
// Invalid input is reported as pk::Error: a message that says what was wrong and what is
// allowed. Apps print it as one line on stderr and exit with status 2.
#include <stdexcept>
#include <string>

namespace pk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

}  // namespace pk
