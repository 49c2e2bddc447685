#include "options.hpp"

#include <pk/app/cli.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>

#include <sstream>

namespace pk::besselk::app {
namespace {

// What a fit's log-likelihood values depend on: the data (or how it is generated), the space
// and whether sigma^2 is profiled. A journal of another identity is refused.
std::string journal_identity(const Setup& setup) {
  std::ostringstream identity;
  identity << std::hexfloat << setup.spaces.front() << " profile-variance=" << setup.profile_variance << ' ';
  if (setup.from_file) {
    const auto& d = setup.data;
    std::uint32_t crc = pk::crc32(d.locations.x.data(), d.locations.x.size() * sizeof(double));
    crc = pk::crc32(d.locations.y.data(), d.locations.y.size() * sizeof(double), crc);
    identity << "file n=" << d.z.size() << " crc32=" << pk::crc32(d.z.data(), d.z.size() * sizeof(double), crc);
  } else {
    const bk::MaternParameters& p = setup.params;
    identity << "synthetic n=" << setup.data.locations.x.size() << " seed=" << setup.seed << " params=" << p.variance
             << ',' << p.range << ',' << p.smoothness << " tile=" << setup.tile;
  }
  return identity.str();
}

}  // namespace

std::optional<Setup> parse(int argc, char** argv) {
  Setup setup;
  std::string space_request = "all";
  long n = 1600;
  std::vector<double> truth{1.0, 0.1, 0.5}, start{0.5, 0.05, 1.0};
  CLI::App cli{"Matern Gaussian process: synthetic data, log-likelihood, maximum-likelihood fit."};
  cli.add_option("mode", setup.mode, "generate | loglik | fit")->check(CLI::IsMember({"generate", "loglik", "fit"}));
  cli.add_option("--space", space_request, pk::backend_choices() + ", a comma-separated list, or all");
  cli.add_option("-n,--locations", n, "number of synthetic locations (jittered grid in the unit square)");
  cli.add_option("--params", truth, "sigma^2,beta,nu: the synthetic field's truth, and loglik's parameters")
      ->delimiter(',')
      ->expected(3);
  cli.add_option("--start", start, "sigma^2,beta,nu where the fit starts")->delimiter(',')->expected(3);
  cli.add_option("--data", setup.data_path, "'x y z' file: written by generate, read by loglik and fit");
  cli.add_option("--seed", setup.seed, "random seed of the synthetic locations and field");
  const auto* tile = cli.add_option("--tile", setup.tile,
                                    "Cholesky tile size (on several ranks or GPUs: ScaLAPACK's or cuSOLVERMg's "
                                    "block size; default 512, with --gpus 1024)");
  cli.add_option("--gpus", setup.gpus,
                 "the covariance in column blocks over this process' first N GPUs, factored by cuSOLVERMg "
                 "(CUDA builds; 0: one space at a time)");
  cli.add_option("--tolerance", setup.tolerance, "relative parameter tolerance of the fit");
  cli.add_option("--max-evaluations", setup.max_evaluations, "the most likelihood evaluations the fit may make");
  cli.add_flag("--profile-variance", setup.profile_variance,
               "fit (beta, nu) with sigma^2 at its closed-form maximiser (same maximum, fewer evaluations)");
  cli.add_option("--out", setup.out, "directory for the result JSON");
  cli.add_option("--checkpoint", setup.checkpoint,
                 "fit: keep every evaluation in FILE as it is made, so that --restart FILE resumes the fit");
  cli.add_option("--restart", setup.restart,
                 "fit: resume the fit whose evaluations FILE holds (the same data, space and --start)");
  const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
  if (!kokkos_args) return std::nullopt;
  setup.kokkos_args = *kokkos_args;
  // cuSOLVERMg's solve wants larger blocks than the one-GPU tiles (docs/mpi.md).
  if (setup.gpus > 0 && tile->count() == 0) setup.tile = 1024;
  setup.params = {truth[0], truth[1], truth[2]};
  bk::check_parameters(setup.params);
  setup.start = {start[0], start[1], start[2]};
  if (setup.mode == "fit") bk::check_parameters(setup.start);
  pk::require(setup.tile >= 16, "--tile " + std::to_string(setup.tile) + ": must be >= 16");
  pk::require(setup.tolerance > 0 && setup.tolerance < 1, "--tolerance must be in (0, 1)");
  pk::require(setup.max_evaluations >= 1, "--max-evaluations must be >= 1");
  pk::require(setup.gpus >= 0, "--gpus " + std::to_string(setup.gpus) + ": must be >= 0");
#if !PK_ENABLE_CUSOLVERMG
  pk::require(setup.gpus == 0, "--gpus: this pk-matern was built without cuSOLVERMg (a CUDA build on Kokkos >= 4.3)");
#endif
  pk::require(setup.gpus == 0 || space_request == "all" || space_request == "cuda",
              "--gpus runs on CUDA: --space must be cuda (or left out)");
  setup.from_file = setup.mode != "generate" && !setup.data_path.empty();
  if (setup.from_file) {
    setup.data = bk::read_matern_data(setup.data_path);
  } else {
    pk::require(n >= 2 && n <= bk::max_locations,
                "--locations " + std::to_string(n) + ": need 2 to " + std::to_string(bk::max_locations) + " locations");
    setup.data.locations = bk::synthetic_locations(static_cast<std::size_t>(n), setup.seed);
  }
  if (setup.mode == "generate") pk::require(!setup.data_path.empty(), "generate needs --data FILE to write to");
  setup.spaces = pk::select_spaces(space_request);
  pk::require_writable_directory(setup.out, "--out");
  if (setup.mode == "generate") pk::require_writable_file_folder(setup.data_path, "--data");
  if (!setup.checkpoint.empty() || !setup.restart.empty()) {
    pk::require(setup.mode == "fit", "--checkpoint and --restart keep and resume a fit: use them with the fit mode");
    pk::require(setup.spaces.size() == 1,
                "--checkpoint and --restart: a journal holds a fit on one space; choose it "
                "with --space");
    if (!setup.checkpoint.empty()) pk::require_writable_file_folder(setup.checkpoint, "--checkpoint");
    setup.journal = std::make_shared<bk::FitJournal>(journal_identity(setup));
    if (!setup.restart.empty()) setup.journal->read(setup.restart);
  }
  return setup;
}

}  // namespace pk::besselk::app
