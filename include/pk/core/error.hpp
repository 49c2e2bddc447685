#pragma once
// Invalid input is reported as pk::Error: a message that says what was wrong and what is
// allowed. Apps print it as one line on stderr and exit with status 2. A broken invariant of
// the library itself is a pk::InternalError (any other exception is treated alike): apps
// print it as an internal error and exit with status 1.
#include <sstream>
#include <stdexcept>
#include <string>

namespace pk {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Throws pk::Error with the parts of its message written one after another, unless
// `condition` holds. The message is built only when the check fails: in a loop, pass its
// parts ("x ", x, " is out of range") rather than one concatenated string.
template <class... Parts>
void require(bool condition, const Parts&... parts) {
  if (condition) return;
  std::ostringstream message;
  (message << ... << parts);
  throw Error(message.str());
}

}  // namespace pk
