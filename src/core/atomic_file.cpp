#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace pk {

namespace {

namespace fs = std::filesystem;

// The temporary file being written, for remove_unfinished_file(); set only while it exists.
char unfinished[4096];
volatile std::sig_atomic_t has_unfinished = 0;

// Streams the content into an open file and closes it; false when a write or the close failed.
bool write_stream(const std::string& path, std::ios::openmode mode, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary | mode);
  if (!out) return false;
  write(out);
  out.close();  // close() reports errors that only the final flush meets
  return !out.fail();
}

// A new, empty file beside `path` that no other writer uses (O_EXCL), permissions as the umask allows.
std::string create_temporary(const fs::path& path) {
  static std::atomic<int> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path candidate = path.parent_path() / ("." + path.filename().string() + ".tmp-" +
                                                     std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return candidate.string();
    }
    if (errno != EEXIST) break;
  }
  throw Error("cannot write '" + path.string() + "': " + std::strerror(errno));
}

}  // namespace

void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    require(!fs::is_directory(status), "cannot write '" + path + "': it is a directory");
    require(write_stream(path, std::ios::out, write), "writing '" + path + "' failed (disk full?)");
    return;
  }
  const std::string temporary = create_temporary(fs::path(path));
  if (temporary.size() < sizeof unfinished) {
    std::copy(temporary.begin(), temporary.end(), unfinished);
    unfinished[temporary.size()] = '\0';
    has_unfinished = 1;
  }
  try {
    require(write_stream(temporary, std::ios::trunc, write), "writing '" + path + "' failed (disk full?)");
    fs::rename(temporary, path, ec);
    has_unfinished = 0;
    require(!ec, "cannot write '" + path + "': " + ec.message());
  } catch (...) {
    has_unfinished = 0;
    fs::remove(temporary, ec);
    throw;
  }
}

void remove_unfinished_file() noexcept {
  if (has_unfinished) ::unlink(unfinished);
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  require(!fs::exists(status) || fs::is_regular_file(status), "cannot write '" + path + "': it is not a regular file");
  temporary_ = create_temporary(fs::path(path));
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) {
    fs::remove(temporary_, ec);
    throw Error("cannot write '" + path + "': " + std::strerror(errno));
  }
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  std::error_code ec;
  if (!temporary_.empty()) fs::remove(temporary_, ec);
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  const char* next = static_cast<const char*>(data);
  while (bytes > 0) {
    const ::ssize_t written = ::write(fd_, next, bytes);
    if (written < 0 && errno == EINTR) continue;  // a signal (SIGUSR1) arrived mid-write
    require(written > 0, "writing '" + path_ + "' failed (disk full?): " + std::strerror(written < 0 ? errno : ENOSPC));
    next += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::write_at(std::size_t offset, const void* data, std::size_t bytes) {
  const char* next = static_cast<const char*>(data);
  while (bytes > 0) {
    const ::ssize_t written = ::pwrite(fd_, next, bytes, static_cast<::off_t>(offset));
    if (written < 0 && errno == EINTR) continue;
    require(written > 0, "writing '" + path_ + "' failed: " + std::strerror(written < 0 ? errno : ENOSPC));
    next += written;
    offset += static_cast<std::size_t>(written);
    bytes -= static_cast<std::size_t>(written);
  }
}

void AtomicFile::commit() {
  require(fd_ >= 0, "'" + path_ + "' was committed already");
  // fsync reports write errors that only the flush to the disk meets (full quota, I/O errors).
  const bool synced = ::fsync(fd_) == 0;
  const int sync_error = errno;
  const bool closed = ::close(fd_) == 0;
  fd_ = -1;
  require(synced && closed, "writing '" + path_ + "' failed: " + std::strerror(synced ? errno : sync_error));
  std::error_code ec;
  fs::rename(temporary_, path_, ec);
  require(!ec, "cannot write '" + path_ + "': " + ec.message());
  temporary_.clear();
  // The rename is durable once the folder's entry is on the disk.
  const fs::path parent = fs::path(path_).parent_path();
  const int folder = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

void make_directories(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  require(!ec, "cannot create the directory '" + path + "': " + ec.message());
}

void require_writable_directory(const std::string& path, const std::string& option) {
  std::error_code ec;
  fs::create_directories(path, ec);
  require(!ec, option, " ", path, ": cannot create the directory: ", ec.message());
  require(fs::is_directory(path, ec), option, " ", path, ": not a directory");
  std::string probe = (fs::path(path) / ".pk-write-test-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  require(fd >= 0, option, " ", path, ": cannot write in the directory: ", std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void require_writable_file_folder(const std::string& path, const std::string& option) {
  const fs::path folder = fs::path(path).parent_path();
  require_writable_directory(folder.empty() ? "." : folder.string(), option + " " + path + ":");
}

void require_stdout_written() {
  std::cout.flush();
  const bool lost = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  require(!lost, "writing to standard output failed");
}

}  // namespace pk
