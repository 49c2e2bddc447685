// pk-matern: Matern Gaussian-process data, its log-likelihood, and the maximum-likelihood
// fit of (sigma^2, beta, nu), on each selected execution space.
//   generate: synthetic field at n jittered-grid locations -> "x y z" file (--data)
//   loglik:   log-likelihood of --data (or a synthetic field) at the given parameters
//   fit:      BOBYQA maximum-likelihood estimate from --start
#include <pk/app/cli.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/matern.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/column_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace bk = pk::besselk;

int main(int argc, char** argv) {
  return pk::run_app("pk-matern", [&] {
    std::string mode = "fit", space_request = "all", data_path, out = "pk-results";
    long n = 1600;
    unsigned long seed = 42;
    std::vector<double> truth{1.0, 0.1, 0.5}, start{0.5, 0.05, 1.0};
    int tile = bk::default_tile_size;
    double tolerance = 1e-5;
    bool profile_variance = false;
    CLI::App cli{"Matern Gaussian process: synthetic data, log-likelihood, maximum-likelihood fit."};
    cli.add_option("mode", mode, "generate | loglik | fit")->check(CLI::IsMember({"generate", "loglik", "fit"}));
    cli.add_option("--space", space_request, pk::backend_choices() + ", a comma-separated list, or all");
    cli.add_option("-n,--locations", n, "number of synthetic locations (jittered grid in the unit square)");
    cli.add_option("--params", truth, "sigma^2,beta,nu: the synthetic field's truth, and loglik's parameters")
        ->delimiter(',')
        ->expected(3);
    cli.add_option("--start", start, "sigma^2,beta,nu where the fit starts")->delimiter(',')->expected(3);
    cli.add_option("--data", data_path, "'x y z' file: written by generate, read by loglik and fit");
    cli.add_option("--seed", seed, "random seed of the synthetic locations and field");
    cli.add_option("--tile", tile, "Cholesky tile size");
    cli.add_option("--tolerance", tolerance, "relative parameter tolerance of the fit");
    cli.add_flag("--profile-variance", profile_variance,
                 "fit (beta, nu) with sigma^2 at its closed-form maximiser (same maximum, fewer evaluations)");
    cli.add_option("--out", out, "directory for the result JSON");
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;

    // Everything is checked before Kokkos starts.
    const bk::MaternParameters params{truth[0], truth[1], truth[2]};
    bk::check_parameters(params);
    const bk::MaternParameters start_params{start[0], start[1], start[2]};
    if (mode == "fit") bk::check_parameters(start_params);
    pk::require(tile >= 16, "--tile " + std::to_string(tile) + ": must be >= 16");
    pk::require(tolerance > 0 && tolerance < 1, "--tolerance must be in (0, 1)");
    const bool from_file = mode != "generate" && !data_path.empty();
    bk::MaternData data;
    if (from_file) {
      data = bk::read_matern_data(data_path);
    } else {
      pk::require(n >= 2 && n <= bk::max_locations, "--locations " + std::to_string(n) + ": need 2 to " +
                                                        std::to_string(bk::max_locations) + " locations");
      data.locations = bk::synthetic_locations(static_cast<std::size_t>(n), seed);
    }
    if (mode == "generate") pk::require(!data_path.empty(), "generate needs --data FILE to write to");
    const auto spaces = pk::select_spaces(space_request);

    pk::Session session(*kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    bool first = true;
    // One n x n matrix at a time (the synthetic field's factor, then the likelihood's work).
    const pk::MemoryAdvice fewer_locations = [](double bytes) {
      return "about " + std::to_string(static_cast<long>(std::sqrt(bytes / 8))) +
             " locations fit (lower --locations, or give fewer rows in --data)";
    };
    const auto run_on = [&](const auto& space) {
      using Space = std::decay_t<decltype(space)>;
      const std::string name = pk::SpaceTraits<Space>::name;
      const long count = static_cast<long>(data.locations.size());
      if (pk::interrupted()) return;
      pk::require_memory(space, 8.0 * count * count + 64.0 * count, std::to_string(count) + " locations",
                         fewer_locations);
      const auto s = bk::to_space(space, data.locations);
      bk::Vector<Space> z;
      if (from_file) {
        z = bk::Vector<Space>(Kokkos::view_alloc(space, "pk::matern::observations"), count);
        Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hz(data.z.data(), data.z.size());
        Kokkos::deep_copy(space, z, hz);
        space.fence();
      } else {
        z = bk::synthetic_observations(space, s, params, seed + 1, tile);
      }
      std::ostringstream case_name;  // one file per mode, size and (synthetic) range
      case_name << mode << "-n" << count;
      if (!from_file) case_name << "-beta" << params.range;
      pk::ResultRecord record{"matern", case_name.str(),       name, pk::describe_device(space),
                              command,  {{"n", double(count)}}};
      if (mode == "generate") {
        if (first) {  // one file, from the first space
          const auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, z);
          pk::write_file(data_path, [&](std::ostream& file) {
            file << "# x y z: Matern field sigma^2=" << params.variance << " beta=" << params.range
                 << " nu=" << params.smoothness << " seed=" << seed << '\n'
                 << std::setprecision(17);
            for (long i = 0; i < count; ++i)
              file << data.locations.x[i] << ' ' << data.locations.y[i] << ' ' << hz(i) << '\n';
          });
          std::cout << name << ": wrote " << count << " observations to " << data_path << std::endl;
        }
      } else if (mode == "loglik") {
        bk::Matrix<Space> work(Kokkos::view_alloc(space, "pk::matern::work"), count, count);
        bk::LikelihoodTimes times;
        const double value = bk::log_likelihood(space, s, z, params, work, &times, tile);
        std::cout << std::setprecision(12) << name << ": n = " << count << ", log-likelihood " << value
                  << " at (sigma^2, beta, nu) = (" << params.variance << ", " << params.range << ", "
                  << params.smoothness << "); generate " << times.generate << " s, factor " << times.factor
                  << " s, solve " << times.solve << " s" << std::endl;
        record.metrics.insert({{"log_likelihood", value},
                               {"generate_seconds", times.generate},
                               {"factor_seconds", times.factor},
                               {"loglik_seconds", times.generate + times.factor + times.solve}});
      } else {
        bk::OptimizerSettings settings;
        settings.relative_tolerance = tolerance;
        const bk::Fit fit = bk::fit_matern(space, s, z, start_params, settings, profile_variance);
        std::cout << std::setprecision(6) << name << ": n = " << count << ", estimate (sigma^2, beta, nu) = ("
                  << fit.estimate.variance << ", " << fit.estimate.range << ", " << fit.estimate.smoothness
                  << "), log-likelihood " << std::setprecision(12) << fit.log_likelihood << ", " << fit.evaluations
                  << " evaluations, " << std::setprecision(4) << fit.seconds << " s"
                  << (fit.interrupted ? " (interrupted)"
                      : fit.converged ? ""
                                      : " (evaluation limit reached)")
                  << std::endl;
        record.interrupted = fit.interrupted;
        record.metrics.insert({{"variance", fit.estimate.variance},
                               {"range", fit.estimate.range},
                               {"smoothness", fit.estimate.smoothness},
                               {"log_likelihood", fit.log_likelihood},
                               {"evaluations", double(fit.evaluations)},
                               {"wall_seconds", fit.seconds}});
      }
      if (mode != "generate") {
        const std::string path = pk::write_result(record, out);
        std::cerr << "wrote " << path << '\n';
      }
      first = false;
    };
    pk::for_each_selected_space(spaces, [&](const auto& space) {
      pk::refuse_if_out_of_memory(space, std::to_string(data.locations.size()) + " locations", fewer_locations,
                                  [&] { run_on(space); });
    });
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
