// libFuzzer target: pk-matern's --data files ("x y z" lines), read and Morton-ordered as
// pk-matern loglik and fit do (pk/besselk/locations.hpp).
#include <pk/besselk/locations.hpp>
#include <pk/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    pk::besselk::parse_matern_data(std::string(reinterpret_cast<const char*>(data), size), "fuzz.txt");
  } catch (const pk::Error&) {  // a refusal: pk-matern prints it and exits with 2
  }
  return 0;
}
