#include "options.hpp"

#include <pk/app/checkpoint_options.hpp>
#include <pk/app/cli.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/app/table.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <cmath>

#ifndef PK_ENABLE_HDF5
#define PK_ENABLE_HDF5 0
#endif

namespace pk::rfilter::app {
namespace {
namespace rf = pk::rfilter;

// Bounds that keep a run finite: the filter's cost grows with K, CG's with its iterations.
constexpr int max_k = 100, max_cg_iterations = 100000;
constexpr double max_sigma = 1e6;  // grid cells: beyond any grid, and the default overlap stays an int

}  // namespace

std::optional<Setup> parse(int argc, char** argv) {
  Options o;
  CLI::App cli{"Synthetic 3D-Var analysis with a recursive-filter Gaussian background covariance, solved by CG."};
  cli.add_option("--space", o.space,
                 pk::backend_choices() + ", a comma-separated list, or all (those that can run here)");
  cli.add_option("--grid", o.grid, "grid extents nx,ny,nz")->delimiter(',')->expected(3);
  cli.add_option("--sigma", o.sigma, "correlation length in grid cells: one value, or nx,ny,nz")->delimiter(',');
  cli.add_option("--iterations,-K", o.iterations, "K, recursive filter iterations");
  cli.add_option("--observations", o.observations, "number of random observations");
  cli.add_option("--observation-file", o.observation_file,
                 "read observations ('x y z value error_std' per line, grid coordinates) instead");
  cli.add_option("--observation-std", o.observation_std, "observation error std (R = std^2 I)");
  cli.add_option("--background-std", o.background_std, "background error std (diagonal of B)");
  cli.add_option("--tolerance", o.tolerance, "CG stops when ||r|| <= tolerance ||b||");
  cli.add_option("--max-iterations", o.max_iterations, "CG iteration limit");
  cli.add_option("--chunks", o.chunks, "chunks per x line for the chunked-filter check");
  cli.add_option_function<int>(
      "--overlap", [&](int m) { o.overlap = m; }, "chunk overlap m (default: ceil(2.5 sigma_x))");
  cli.add_option("--seed", o.seed, "random seed");
  cli.add_option("--out", o.out, "directory for the result JSON");
  cli.add_flag(
      "--h5", o.h5,
      "write the analysis, background and truth to 3dvar-SPACE.h5 (and its XDMF) in --out, all ranks into one");
  pk::add_checkpoint_options(cli, o.checkpoint, "CG iterations");
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;

  pk::require(o.grid.size() == 3, "--grid needs three extents nx,ny,nz");
  const rf::Grid grid{o.grid[0], o.grid[1], o.grid[2]};
  rf::check_grid(grid);
  pk::require(o.sigma.size() == 1 || o.sigma.size() == 3, "mismatched sizes: --sigma has " +
                                                              std::to_string(o.sigma.size()) +
                                                              " values; give one, or one per grid axis (3)");
  if (o.sigma.size() == 1) o.sigma.assign(3, o.sigma[0]);
  for (double sigma : o.sigma)  // finite and > 0 is checked with the covariance
    pk::require(!(sigma > max_sigma),
                "--sigma " + pk::format_number(sigma) + ": at most " + pk::format_number(max_sigma) + " grid cells");
  pk::require(o.iterations >= 1 && o.iterations <= max_k,
              "-K " + std::to_string(o.iterations) + ": K (iterations) must be 1 to " + std::to_string(max_k));
  rf::SyntheticSettings settings;
  settings.grid = grid;
  for (int a = 0; a < 3; ++a) settings.covariance.per_axis[a] = rf::make_coefficients(o.sigma[a], o.iterations);
  settings.covariance.background_std = o.background_std;
  rf::check_covariance(settings.covariance);
  settings.observation_std = o.observation_std;
  settings.seed = o.seed;
  rf::ObservationSet file_observations;
  if (!o.observation_file.empty()) {
    file_observations = rf::read_observations(o.observation_file);
    rf::check_observations(file_observations, grid);
    pk::require(file_observations.size() > 0, "observation file '" + o.observation_file + "' holds no observations");
    settings.observations = static_cast<long>(file_observations.size());
  } else {
    pk::require(o.observations >= 1, "--observations must be >= 1");
    settings.observations = o.observations;
  }
  pk::require(std::isfinite(o.observation_std) && o.observation_std > 0, "--observation-std must be > 0");
  pk::require(o.tolerance > 0 && o.tolerance < 1, "--tolerance must be in (0, 1)");
  pk::require(
      o.max_iterations >= 1 && o.max_iterations <= max_cg_iterations,
      "--max-iterations " + std::to_string(o.max_iterations) + ": must be 1 to " + std::to_string(max_cg_iterations));
  const rf::Chunking chunking{o.chunks, o.overlap ? *o.overlap : rf::default_overlap(o.sigma[0])};
  if (!o.overlap && o.chunks >= 1 && o.chunks <= grid.nx)  // name the cause the user can change
    pk::require(chunking.overlap <= grid.nx / o.chunks,
                "--sigma " + pk::format_number(o.sigma[0]) + " gives the chunked check an overlap of " +
                    std::to_string(chunking.overlap) + " (2.5 sigma_x), larger than a chunk (" +
                    std::to_string(grid.nx / o.chunks) + " entries): use fewer --chunks or set --overlap");
  rf::check_chunking(chunking, grid.nx);
  pk::check_checkpoint_options(o.checkpoint);
  pk::require(!o.h5 || PK_ENABLE_HDF5,
              "--h5: this build has no HDF5 output (configure with -DPK_ENABLE_HDF5=ON and MPI; Debian: "
              "libhdf5-openmpi-dev)");
  const auto spaces = pk::select_spaces(o.space);
  pk::require(spaces.size() == 1 || (o.checkpoint.path.empty() && o.checkpoint.restart.empty()),
              "--checkpoint and --restart: a checkpoint holds a run on one space; choose it with --space");
  pk::require_writable_directory(o.out, "--out");
  return Setup{o, settings, file_observations, chunking, spaces, *kokkos_args};
}

// "a NX x NY x NZ grid with M observations", as messages name a run.
std::string problem_name(const Grid& grid, long observations) {
  return "a " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " + std::to_string(grid.nz) +
         " grid with " + std::to_string(observations) + " observations";
}

// The grid points that fit in the bytes a run may use on each of `ranks`, and what to lower.
MemoryAdvice smaller_grid(long observations, int ranks) {
  return [=](double bytes) {
    return "about " + std::to_string(static_cast<long long>(bytes / planned_bytes(1, 0)) - observations) +
           " grid points fit: use a smaller --grid" + (ranks > 1 ? " or more ranks" : "");
  };
}

// The header of this run's checkpoints: the options that define the analysis (on several
// ranks also the overlap, which changes V).
CheckpointHeader run_header(const std::string& space, const Setup& setup, int ranks) {
  const Options& o = setup.o;
  pk::CheckpointHeader h;
  h.program = "pk-3dvar";
  h.space = space;
  const rf::Grid& g = setup.settings.grid;
  h.options.emplace_back("grid", std::to_string(g.nx) + "," + std::to_string(g.ny) + "," + std::to_string(g.nz));
  h.options.emplace_back(
      "sigma", pk::exact_number(o.sigma[0]) + "," + pk::exact_number(o.sigma[1]) + "," + pk::exact_number(o.sigma[2]));
  h.options.emplace_back("iterations", std::to_string(o.iterations));
  if (o.observation_file.empty()) {
    h.options.emplace_back("observations", std::to_string(o.observations));
  } else {
    const rf::ObservationSet& f = setup.file_observations;
    std::uint32_t crc = 0;
    for (const std::vector<double>* column : {&f.x, &f.y, &f.z, &f.value, &f.error_std})
      crc = pk::crc32(column->data(), column->size() * sizeof(double), crc);
    h.options.emplace_back("observation-file",
                           std::to_string(f.size()) + " observations, crc32 " + std::to_string(crc));
  }
  h.options.emplace_back("observation-std", pk::exact_number(o.observation_std));
  h.options.emplace_back("background-std", pk::exact_number(o.background_std));
  h.options.emplace_back("seed", std::to_string(o.seed));
  if (ranks > 1) h.options.emplace_back("overlap", std::to_string(setup.chunking.overlap));
  return h;
}

}  // namespace pk::rfilter::app
