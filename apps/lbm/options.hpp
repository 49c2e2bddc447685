#pragma once
// pk-lbm's command line, read and checked before Kokkos starts.
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/slabs.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pk::lbm::app {

struct Options {
  std::int64_t steps = 1000;
  std::int64_t vti_every = 0;
  std::int64_t h5_every = 0;
  std::string out = "pk-lbm-out";
  std::string precision = "fp32";
  SlabAxis slab_axis = SlabAxis::automatic;
  CheckpointOptions checkpoint;
  bool compare_spaces = false;  // several spaces: each run returns its fields for the comparison

  // Whether the run reads its fields to the host: to write them, or to compare spaces (the
  // summary is reduced on the space).
  bool fields_on_host() const { return vti_every > 0 || h5_every > 0 || compare_spaces; }
};

struct Setup {
  Options options;
  Parameters parameters;
  Geometry geometry;
  std::vector<std::string> spaces;
  std::vector<std::string> kokkos_args;
};

// Nothing when --help was answered; pk::Error for bad input.
std::optional<Setup> parse(int argc, char** argv);

}  // namespace pk::lbm::app
