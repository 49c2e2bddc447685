#pragma once
// Files a program writes appear whole or not at all: the content goes to a temporary file in
// the same folder, which is checked, closed and then renamed over the final name, so a full
// disk or an interruption never leaves a truncated file under that name. A target that
// exists and is not a regular file (/dev/null, a pipe, /dev/full) is written in place and
// checked the same way.
#include <cstddef>
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
// A file written through a temporary beside `path` with POSIX I/O, for large binary files
// (checkpoints): commit() flushes it to the disk (fsync), renames it over `path` and syncs the
// folder, so that after a crash `path` holds the old content or the new, whole. Destroyed
// without commit(), it removes the temporary. Every failure throws pk::Error naming `path`.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends `bytes` bytes.
  void write(const void* data, std::size_t bytes);
  // Overwrites bytes already written, from `offset` on (a header completed last).
  void write_at(std::size_t offset, const void* data, std::size_t bytes);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temporary_;
  int fd_ = -1;
};

// Creates the directory `path` and its parents where missing; pk::Error when it cannot.
void make_directories(const std::string& path);

// Before a program's work: creates the directory `path` (named by `option`, e.g. "--out") and
// writes and removes a file in it, so that a folder that cannot hold the outputs (a file in
// the way, no permission, a read-only disk) is refused (pk::Error) before hours of work.
void require_writable_directory(const std::string& path, const std::string& option);

// The same for the folder of the file `path` (its directory, or the working directory).
void require_writable_file_folder(const std::string& path, const std::string& option);

// Throws pk::Error when something written to standard output was lost (a full disk, a
// closed file): flushes std::cout and C's stdout first.
void require_stdout_written();

}  // namespace pk
