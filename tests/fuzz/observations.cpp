// libFuzzer target: pk-3dvar's --observation-file, parsed and checked against a grid as
// pk-3dvar does (pk/rfilter/observation_set.hpp). The first two bytes pick the grid.
#include <pk/core/error.hpp>
#include <pk/rfilter/observation_set.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const pk::rfilter::Grid grid{1 + data[0], 1 + data[1] % 64, 1 + data[1] / 64};
  try {
    const auto observations =
        pk::rfilter::parse_observations(std::string(reinterpret_cast<const char*>(data + 2), size - 2), "fuzz.obs");
    pk::rfilter::check_observations(observations, grid);
  } catch (const pk::Error&) {  // a refusal: pk-3dvar prints it and exits with 2
  }
  return 0;
}
