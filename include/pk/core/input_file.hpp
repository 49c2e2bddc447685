#pragma once
// Every file a program reads (flag, config and data files) is read whole through
// read_input_file, which first checks that it is a regular, readable file of bounded size:
// a device (/dev/zero), a FIFO or a directory given by mistake would otherwise never end,
// fill the memory, or read as an empty file.
#include <cstddef>
#include <string>

namespace pk {

// The most a text input file may hold unless its reader allows more: 1 GiB.
inline constexpr std::size_t max_input_bytes = std::size_t{1} << 30;

// The content of `path`. Throws pk::Error "NAME: ..." (NAME: `name`, or the path when it is
// empty) when it cannot be opened or read, is not a regular file, or holds more than
// `max_bytes`.
std::string read_input_file(const std::string& path, std::size_t max_bytes = max_input_bytes,
                            const std::string& name = "");

}  // namespace pk
