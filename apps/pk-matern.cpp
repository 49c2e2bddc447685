// pk-matern: Matern Gaussian-process data, its log-likelihood, and the maximum-likelihood
// fit of (sigma^2, beta, nu), on each selected execution space.
//   generate: synthetic field at n jittered-grid locations -> "x y z" file (--data)
//   loglik:   log-likelihood of --data (or a synthetic field) at the given parameters
//   fit:      BOBYQA maximum-likelihood estimate from --start
// Built with ScaLAPACK and started on several ranks (mpirun -np N pk-matern ...), loglik and
// fit spread the covariance matrix over the ranks (pk/besselk/distributed.hpp), one space
// per rank. Built with cuSOLVERMg, --gpus N spreads it over N GPUs of one process
// (pk/besselk/multi_gpu.hpp).
#include "besselk/options.hpp"

#include <pk/app/program.hpp>
#include <pk/app/results.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#if PK_ENABLE_SCALAPACK
#include <pk/besselk/distributed.hpp>
#endif
#if PK_ENABLE_CUSOLVERMG
#include <pk/besselk/multi_gpu.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace bk = pk::besselk;

namespace {

using namespace pk::besselk::app;

// The record of a loglik or fit run: one file per mode, size and (synthetic) range.
template <class Space>
pk::ResultRecord new_record(const Setup& setup, const Space& space, const std::string& command, long count) {
  std::ostringstream case_name;
  case_name << setup.mode << "-n" << count;
  if (!setup.from_file) case_name << "-beta" << setup.params.range;
  return pk::ResultRecord{"matern", case_name.str(),       pk::SpaceTraits<Space>::name, pk::describe_device(space),
                          command,  {{"n", double(count)}}};
}

void print_loglik(const std::string& name, long count, double value, const bk::MaternParameters& p,
                  const bk::LikelihoodTimes& times, pk::ResultRecord& record) {
  std::cout << std::setprecision(12) << name << ": n = " << count << ", log-likelihood " << value
            << " at (sigma^2, beta, nu) = (" << p.variance << ", " << p.range << ", " << p.smoothness << "); generate "
            << times.generate << " s, factor " << times.factor << " s, solve " << times.solve << " s" << std::endl;
  record.metrics.insert({{"log_likelihood", value},
                         {"generate_seconds", times.generate},
                         {"factor_seconds", times.factor},
                         {"loglik_seconds", times.generate + times.factor + times.solve}});
}

void print_fit(const std::string& name, long count, const bk::Fit& fit, pk::ResultRecord& record) {
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
                         {"wall_seconds", fit.seconds},
                         {"seconds_per_evaluation", fit.seconds / std::max(1, fit.evaluations)}});
}

// A resumed fit's evaluations taken from its journal, in the record and on stdout; the time
// per evaluation counts those evaluated.
void print_recalled(const Setup& setup, const bk::Fit& fit, pk::ResultRecord& record) {
  if (!setup.journal || setup.restart.empty()) return;
  const int recalled = setup.journal->recalled();
  std::cout << "  resumed: " << recalled << " of the evaluations taken from " << setup.restart << std::endl;
  record.metrics["recalled_evaluations"] = recalled;
  record.metrics["seconds_per_evaluation"] = fit.seconds / std::max(1, fit.evaluations - recalled);
}

// One n x n matrix at a time (the synthetic field's factor, then the likelihood's work).
std::string fewer_locations(double bytes) {
  return "about " + std::to_string(static_cast<long>(std::sqrt(bytes / 8))) +
         " locations fit (lower --locations, or give fewer rows in --data)";
}

void write_observations(const Setup& setup, const std::vector<double>& z) {
  const bk::MaternParameters& p = setup.params;
  pk::write_file(setup.data_path, [&](std::ostream& file) {
    file << "# x y z: Matern field sigma^2=" << p.variance << " beta=" << p.range << " nu=" << p.smoothness
         << " seed=" << setup.seed << '\n'
         << std::setprecision(17);
    for (std::size_t i = 0; i < z.size(); ++i)
      file << setup.data.locations.x[i] << ' ' << setup.data.locations.y[i] << ' ' << z[i] << '\n';
  });
}

// The fit's settings; with show_progress, a line on stderr at most every 10 s while it runs.
bk::OptimizerSettings optimizer_settings(const Setup& setup, bool show_progress) {
  bk::OptimizerSettings settings;
  settings.relative_tolerance = setup.tolerance;
  settings.max_evaluations = setup.max_evaluations;
  if (show_progress)
    settings.progress = [start = std::chrono::steady_clock::now(), last = 0.0](
                            int evaluations, const bk::Parameters& at, double value) mutable {
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (now - last < 10) return;
      last = now;
      std::cerr << "fit: " << evaluations << " evaluations in " << std::setprecision(4) << now << " s, the last at (";
      for (std::size_t i = 0; i < at.size(); ++i) std::cerr << (i ? ", " : "") << std::setprecision(6) << at[i];
      std::cerr << "): log-likelihood " << std::setprecision(12) << value << std::endl;
    };
  // Only the rank that shows progress writes the journal; every rank recalls what it read.
  if (setup.journal) setup.journal->attach(settings, show_progress ? setup.checkpoint : "");
  return settings;
}

template <class Space>
void run(const Space& space, const Setup& setup, const std::string& command, bool first) {
  const std::string name = pk::SpaceTraits<Space>::name;
  const long count = static_cast<long>(setup.data.locations.size());
  pk::require_memory(space, 8.0 * count * count + 64.0 * count, std::to_string(count) + " locations", fewer_locations);
  const auto s = bk::to_space(space, setup.data.locations);
  bk::Vector<Space> z;
  if (setup.from_file) {
    z = bk::Vector<Space>(Kokkos::view_alloc(space, "pk::matern::observations"), count);
    Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hz(setup.data.z.data(),
                                                                               setup.data.z.size());
    Kokkos::deep_copy(space, z, hz);
    space.fence();
  } else {
    z = bk::synthetic_observations(space, s, setup.params, setup.seed + 1, setup.tile);
  }
  if (setup.mode == "generate") {
    if (!first) return;  // one file, from the first space
    const auto hz = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, z);
    write_observations(setup, std::vector<double>(hz.data(), hz.data() + count));
    std::cout << name << ": wrote " << count << " observations to " << setup.data_path << std::endl;
    return;
  }
  pk::ResultRecord record = new_record(setup, space, command, count);
  if (setup.mode == "loglik") {
    bk::Matrix<Space> work(Kokkos::view_alloc(space, "pk::matern::work"), count, count);
    bk::LikelihoodTimes times;
    const double value = bk::log_likelihood(space, s, z, setup.params, work, &times, setup.tile);
    print_loglik(name, count, value, setup.params, times, record);
  } else {
    const bk::Fit fit =
        bk::fit_matern(space, s, z, setup.start, optimizer_settings(setup, true), setup.profile_variance);
    print_fit(name, count, fit, record);
    print_recalled(setup, fit, record);
  }
  std::cerr << "wrote " << pk::write_result(record, setup.out) << '\n';
}

#if PK_ENABLE_SCALAPACK
// loglik or fit on the ranks, the covariance block-cyclic over them.
template <class Space>
void run_distributed(const pk::mpi::Communicator& world, const Space& space, const Setup& setup,
                     const std::string& command) {
  pk::mpi::collectively(world, [&] {
    pk::require(setup.mode != "generate", "generate runs on one rank (start it without mpirun)");
    pk::require(setup.gpus == 0, "--gpus spreads one process over its GPUs: start it without mpirun");
  });
  const std::string name = pk::SpaceTraits<Space>::name;
  const long count = static_cast<long>(setup.data.locations.size());
  std::optional<bk::BlockCyclic> layout;
  pk::mpi::collectively(world, [&] { layout.emplace(world, count, setup.tile); });
  pk::mpi::collectively(world, [&] {
    const std::string what = std::to_string(count) + " locations on " + std::to_string(world.size()) + " ranks";
    const auto fewer = [&](double bytes) {
      return "about " + std::to_string(static_cast<long>(std::sqrt(bytes * world.size() / 8))) + " locations fit on " +
             std::to_string(world.size()) + " ranks (lower --locations, or add ranks)";
    };
    pk::require_memory(space, bk::LocalTiles<Space>::device_bytes(*layout) + 64.0 * count, what, fewer);
    pk::require_memory(Kokkos::DefaultHostExecutionSpace{}, bk::LocalTiles<Space>::host_bytes(*layout) + 32.0 * count,
                       what, fewer);
  });
  std::optional<bk::LocalTiles<Space>> work;
  pk::mpi::collectively(world, [&] { work.emplace(space, *layout); });
  const auto s = bk::to_space(space, setup.data.locations);
  const std::vector<double> z =
      setup.from_file ? setup.data.z
                      : bk::distributed_synthetic_observations(space, *layout, s, setup.params, setup.seed + 1, *work);
  pk::ResultRecord record = new_record(setup, space, command, count);
  record.metrics["ranks"] = world.size();
  record.metrics["block"] = setup.tile;
  const std::string label = name + " on " + std::to_string(world.size()) + " ranks (" +
                            std::to_string(layout->grid_rows()) + " x " + std::to_string(layout->grid_cols()) +
                            " ScaLAPACK grid)";
  if (setup.mode == "loglik") {
    bk::LikelihoodTimes times;
    const auto parts = bk::distributed_log_likelihood_parts(space, *layout, s, z, setup.params, *work, &times);
    if (!parts)
      throw pk::mpi::AgreedError(
          "covariance matrix is not positive definite (duplicate or near-duplicate locations, "
          "or parameters that make the matrix numerically singular)");
    times = {world.max(times.generate), world.max(times.factor), world.max(times.solve)};
    if (world.rank() == 0) print_loglik(label, count, parts->value(), setup.params, times, record);
  } else {
    work.reset();  // the fit allocates its own
    const bk::Fit fit = bk::fit_matern_distributed(
        space, *layout, s, z, setup.start, optimizer_settings(setup, world.rank() == 0), world, setup.profile_variance);
    if (world.rank() == 0) {
      print_fit(label, count, fit, record);
      print_recalled(setup, fit, record);
    }
  }
  if (world.rank() == 0) std::cerr << "wrote " << pk::write_result(record, setup.out) << '\n';
}

void run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  pk::mpi::for_each_space_until_interrupted(world, setup.spaces, [&](const auto& space) {
    pk::refuse_if_out_of_memory(space, std::to_string(setup.data.locations.size()) + " locations", fewer_locations,
                                [&] { run_distributed(world, space, setup, command); });
  });
}
#endif

#if PK_ENABLE_CUSOLVERMG
// generate, loglik or fit with the covariance in column blocks over the first setup.gpus
// GPUs, each generating its own columns.
void run_multi_gpu(const Setup& setup, const std::string& command) {
  const long count = static_cast<long>(setup.data.locations.size());
  std::vector<int> devices(static_cast<std::size_t>(setup.gpus));
  std::iota(devices.begin(), devices.end(), 0);
  bk::GpuInstances gpus(devices);
  bk::MultiGpuCovariance covariance(gpus.instances(), setup.data.locations, setup.tile);
  const std::vector<double> z =
      setup.from_file ? setup.data.z : covariance.synthetic_observations(setup.params, setup.seed + 1);
  const std::string label = "cuda on " + std::to_string(setup.gpus) + " GPU(s) (cuSOLVERMg, column blocks of " +
                            std::to_string(setup.tile) + ")";
  if (setup.mode == "generate") {
    write_observations(setup, z);
    std::cout << label << ": wrote " << count << " observations to " << setup.data_path << std::endl;
    return;
  }
  pk::ResultRecord record = new_record(setup, gpus.instances().front(), command, count);
  record.metrics["gpus"] = setup.gpus;
  record.metrics["block"] = setup.tile;
  if (setup.mode == "loglik") {
    bk::LikelihoodTimes times;
    const auto parts = covariance.log_likelihood_parts(z, setup.params, &times);
    pk::require(parts.has_value(),
                "covariance matrix is not positive definite (duplicate or near-duplicate locations, or parameters "
                "that make the matrix numerically singular)");
    print_loglik(label, count, parts->value(), setup.params, times, record);
  } else {
    const bk::Fit fit =
        bk::fit_matern_multi_gpu(covariance, z, setup.start, optimizer_settings(setup, true), setup.profile_variance);
    print_fit(label, count, fit, record);
    print_recalled(setup, fit, record);
  }
  std::cerr << "wrote " << pk::write_result(record, setup.out) << '\n';
}
#endif

// pk-matern on one process: each space in turn, or the covariance over several GPUs.
void run_spaces(const Setup& setup, const std::string& command) {
#if PK_ENABLE_CUSOLVERMG
  if (setup.gpus > 0) return run_multi_gpu(setup, command);
#endif
  bool first = true;
  pk::for_each_space_until_interrupted(setup.spaces, [&](const auto& space) {
    pk::refuse_if_out_of_memory(space, std::to_string(setup.data.locations.size()) + " locations", fewer_locations,
                                [&] { run(space, setup, command, first); });
    first = false;
  });
}

}  // namespace

int main(int argc, char** argv) {
#if PK_ENABLE_SCALAPACK
  return pk::program_main("pk-matern", argc, argv, parse, run_spaces, run_ranks);
#else
  return pk::program_main("pk-matern", argc, argv, parse, run_spaces);
#endif
}
