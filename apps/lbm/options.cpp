#include "options.hpp"

#include <pk/app/checkpoint_options.hpp>
#include <pk/app/cli.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>

#ifndef PK_ENABLE_HDF5
#define PK_ENABLE_HDF5 0
#endif

namespace pk::lbm::app {
namespace {

// Keeps a run finite: a billion steps take days even on a small lattice.
constexpr std::int64_t max_steps = 1000000000;

}  // namespace

std::optional<Setup> parse(int argc, char** argv) {
  Options options;
  Parameters parameters;
  parameters.inlet_density = 1.001;
  parameters.outlet_density = 0.999;
  std::string space_request = "all", pattern = "aa", flag_file, slab_axis = "auto";
  std::vector<int> channel = {64, 32, 32};
  CLI::App cli{"D3Q19 lattice Boltzmann (BGK) flow, A-A or A-B streaming, on OpenMP and/or CUDA. Lattice units."};
  cli.add_option("--space", space_request,
                 pk::backend_choices() + ", a comma-separated list, or all (those that can run here)");
  auto* channel_option =
      cli.add_option("--channel", channel, "box channel LENGTH WIDTH HEIGHT in fluid cells (flow along x)")
          ->expected(3);
  cli.add_option("--flag-file", flag_file,
                 "flag field file instead of the channel (format: include/pk/lbm/geometry.hpp)")
      ->excludes(channel_option);
  cli.add_option("--steps", options.steps, "time steps")->capture_default_str();
  cli.add_option("--tau", parameters.tau, "BGK relaxation time (> 0.5); viscosity (tau - 0.5) / 3")
      ->capture_default_str();
  cli.add_option("--inlet-density", parameters.inlet_density, "density prescribed on inlet cells")
      ->capture_default_str();
  cli.add_option("--outlet-density", parameters.outlet_density, "density prescribed on outlet cells")
      ->capture_default_str();
  cli.add_option("--pattern", pattern, "streaming: aa (one lattice) or ab (two lattices)")
      ->check(CLI::IsMember({"aa", "ab"}))
      ->capture_default_str();
  cli.add_option("--precision", options.precision,
                 "storage: fp32, fp64, fp16 or fp16c (16 bits, 11 of mantissa; both computing in fp32)")
      ->check(CLI::IsMember(precision_names))
      ->capture_default_str();
  cli.add_option("--max-mach", parameters.max_mach, "largest |u| / c_s allowed, checked before and during the run")
      ->capture_default_str();
  cli.add_option("--check-every", parameters.check_interval, "steps between NaN/density/Mach checks (0: never)")
      ->capture_default_str();
  cli.add_option("--vti-every", options.vti_every, "write VTK image data every N steps (0: never)")
      ->capture_default_str();
  cli.add_option("--h5-every", options.h5_every,
                 "write the fields to one HDF5 file (and its XDMF) every N steps, all ranks into one (0: never)")
      ->capture_default_str();
  cli.add_option("--out", options.out, "directory for .vti and .h5 files and the JSON summary")->capture_default_str();
  cli.add_option("--slab-axis", slab_axis,
                 "on several MPI ranks, the axis the lattice is cut along: x, y, z, or auto (z when it has a layer "
                 "for every rank: its planes are contiguous)")
      ->check(CLI::IsMember({"auto", "x", "y", "z"}))
      ->capture_default_str();
  pk::add_checkpoint_options(cli, options.checkpoint, "steps");
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;

  pk::require(options.steps >= 1 && options.steps <= max_steps,
              "--steps " + std::to_string(options.steps) + ": need 1 to " + std::to_string(max_steps) + " steps");
  pk::require(options.vti_every >= 0, "--vti-every " + std::to_string(options.vti_every) + " must be >= 0");
  pk::require(options.h5_every >= 0, "--h5-every ", options.h5_every, " must be >= 0");
  pk::require(options.h5_every == 0 || PK_ENABLE_HDF5,
              "--h5-every: this build has no HDF5 output (configure with -DPK_ENABLE_HDF5=ON and MPI; Debian: "
              "libhdf5-openmpi-dev)");
  parameters.streaming = pattern == "ab" ? Streaming::ab : Streaming::aa;
  parameters.planned_steps = options.steps;  // tuning trials take a bounded share of them
  if (slab_axis != "auto") options.slab_axis = static_cast<SlabAxis>(slab_axis[0] - 'x');
  parameters.initial_density = 0.5 * (parameters.inlet_density + parameters.outlet_density);
  Geometry geometry = flag_file.empty() ? box_channel(channel[0], channel[1], channel[2]) : read_flag_file(flag_file);
  geometry.validate();
  validate(parameters, geometry);
  pk::check_checkpoint_options(options.checkpoint);
  auto spaces = pk::select_spaces(space_request);
  pk::require(spaces.size() == 1 || (options.checkpoint.path.empty() && options.checkpoint.restart.empty()),
              "--checkpoint and --restart: a checkpoint holds a run on one space; choose it with --space");
  options.compare_spaces = spaces.size() > 1;
  pk::require_writable_directory(options.out, "--out");
  return Setup{options, parameters, std::move(geometry), std::move(spaces), *kokkos_args};
}

}  // namespace pk::lbm::app
