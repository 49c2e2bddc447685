// libFuzzer target: pk-lbm's flag files (pk/lbm/geometry.hpp), as pk-lbm --flag-file reads them.
#include <pk/core/error.hpp>
#include <pk/lbm/geometry.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    pk::lbm::parse_flag_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.flags");
  } catch (const pk::Error&) {  // a refusal: pk-lbm prints it and exits with 2
  }
  return 0;
}
