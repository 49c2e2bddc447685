#include <pk/core/details/descriptor.hpp>
#include <pk/core/error.hpp>
#include <pk/core/input_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pk {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string bytes_text(double bytes) {
  char text[32];
  if (bytes < 1e6)
    std::snprintf(text, sizeof text, "%.0f bytes", bytes);
  else
    std::snprintf(text, sizeof text, "%.3g %s", bytes >= 1e9 ? bytes / 1e9 : bytes / 1e6, bytes >= 1e9 ? "GB" : "MB");
  return text;
}

}  // namespace

std::string read_input_file(const std::string& path, std::size_t max_bytes, const std::string& name) {
  const std::string shown = name.empty() ? path : name;
  // O_NONBLOCK: opening a FIFO without a writer returns at once (regular files ignore it);
  // the checks then look at what was opened, not at a name that may since point elsewhere.
  const Details::Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  require(file.fd >= 0, shown, ": cannot be opened (", std::strerror(errno), ")");
  struct stat status = {};
  require(::fstat(file.fd, &status) == 0, shown, ": cannot be read (", std::strerror(errno), ")");
  require(S_ISREG(status.st_mode), shown, ": is ", kind_of(status.st_mode), ", not a regular file");
  const auto too_big = [&](double bytes) {
    return Error(shown + ": holds " + bytes_text(bytes) + ", more than the " + bytes_text(double(max_bytes)) +
                 " an input file may hold here");
  };
  if (static_cast<std::size_t>(status.st_size) > max_bytes) throw too_big(double(status.st_size));
  std::string text(static_cast<std::size_t>(status.st_size), '\0');
  std::size_t filled = 0;
  for (;;) {
    if (filled == text.size()) text.resize(std::min(std::max<std::size_t>(2 * filled, 4096), max_bytes + 1));
    if (filled == text.size()) throw too_big(double(filled));  // it grew past the bound while read
    const ssize_t got = ::read(file.fd, &text[filled], text.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    require(got >= 0, shown, ": reading failed (", std::strerror(errno), ")");
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  text.resize(filled);
  return text;
}

}  // namespace pk
