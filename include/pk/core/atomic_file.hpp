#pragma once
// Files a program writes appear whole or not at all: the content goes to a temporary file in
// the same folder, which is checked, closed and then renamed over the final name, so a full
// disk or an interruption never leaves a truncated file under that name. A target that
// exists and is not a regular file (/dev/null, a pipe, /dev/full) is written in place and
// checked the same way.
#include <functional>
#include <ostream>
#include <string>

namespace pk {

// Writes `path` through write(stream). Throws pk::Error naming the path when any step
// fails; the temporary file is removed and nothing new appears under `path`.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& write);

// Removes the temporary file of a write_file under way, if any, for a signal handler that
// ends the program at once (async-signal-safe: no file is left half written).
void remove_unfinished_file() noexcept;

// Creates the directory `path` and its parents where missing; pk::Error when it cannot.
void make_directories(const std::string& path);

// Throws pk::Error when something written to standard output was lost (a full disk, a
// closed file): flushes std::cout and C's stdout first.
void require_stdout_written();

}  // namespace pk
