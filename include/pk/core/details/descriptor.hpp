#pragma once
// A POSIX file descriptor closed however its scope ends, an exception included (the input
// files' reader, and a checkpoint reader whose constructor throws). -1: none.
#include <unistd.h>

namespace pk::Details {

struct Descriptor {
  int fd;
  explicit Descriptor(int opened) : fd(opened) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace pk::Details
