// pk-3dvar: a synthetic 3D-Var analysis. A smooth truth on a grid, a background whose
// error has the recursive-filter Gaussian covariance B = V V^T, noisy observations at
// random points (or read from a file); CG solves (I + V^T H^T R^-1 H V) v = V^T H^T R^-1 d.
// Built with MPI and started on several ranks (mpirun -np N pk-3dvar ...), it splits the
// grid along x, one overlapped chunk per rank (pk/rfilter/distributed_three_dvar.hpp).
// Checkpoints of CG's state and restarts (--checkpoint, --restart) continue a solve bit for
// bit (docs/jobs.md).
#include "rfilter/options.hpp"

#include <pk/app/program.hpp>
#include <pk/app/results.hpp>
#include <pk/app/table.hpp>
#include <pk/core/checkpoint.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>
#include <pk/rfilter/checkpoint.hpp>
#include <pk/rfilter/chunked_filter.hpp>
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/synthetic.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#if PK_ENABLE_MPI
#include <pk/rfilter/distributed_three_dvar.hpp>
#endif
#if PK_ENABLE_HDF5
#include <pk/hdf5/fields.hpp>
#else
#define PK_ENABLE_HDF5 0
#endif

namespace {

namespace rf = pk::rfilter;
using namespace pk::rfilter::app;

// CG's control in a run: a restart's state, checkpoints when the schedule says (every rank
// agreeing through `agree`; `clock`: this process keeps the wall-clock interval) and after
// the last iteration, a stop at SIGINT/SIGTERM.
template <class Vector, class Agree>
rf::CgControl<Vector> cg_control(const Options& o, const pk::CheckpointHeader& header, pk::CheckpointFiles& files,
                                 pk::CheckpointSchedule& schedule, const rf::CgState<Vector>* resume, bool clock,
                                 const Agree& agree) {
  rf::CgControl<Vector> control;
  control.resume = resume;
  control.after_iteration = [&, header, clock](const rf::CgState<Vector>& state) {
    const unsigned due = agree(schedule.due(state.iterations, clock));
    if (!o.checkpoint.path.empty() && ((due & pk::CheckpointSchedule::checkpoint) || state.last)) {
      pk::CheckpointHeader now = header;
      rf::describe_state(now, state);
      files.write(now, [&](pk::CheckpointWriter& w) { rf::write_state(w, state); });
    }
    return !(due & pk::CheckpointSchedule::stop);
  };
  return control;
}

#if PK_ENABLE_HDF5
// Writes the analysis, background and truth of this rank's x slab [begin, begin + size) to
// <out>/3dvar-<space>.h5 and its XDMF (comm: nullptr for one process).
template <class Vector>
void write_h5(const pk::mpi::Communicator* comm, const Options& o, const std::string& space, const rf::Grid& grid,
              int begin, int size, const Vector& analysis, const Vector& background, const Vector& truth) {
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, analysis);
  const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, background);
  const auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, truth);
  const std::string path = o.out + "/3dvar-" + space + ".h5";
  pk::hdf5::write_fields(comm, path, {grid.nx, grid.ny, grid.nz}, {{begin, 0, 0}, {size, grid.ny, grid.nz}},
                         {{"analysis", 1, a.data()}, {"background", 1, b.data()}, {"truth", 1, t.data()}}, 0);
  if (!comm || comm->rank() == 0) std::cerr << "wrote " << path << '\n';
}
#endif

// How an analysis went, for one line on stdout: "CG converged in ... s", `where` after the
// iteration count.
void print_summary(const std::string& space, const rf::AnalysisResult& result, const std::string& where,
                   double background_rmse, double analysis_rmse, double seconds) {
  std::cout << space << ": CG "
            << (result.cg.converged     ? "converged"
                : result.cg.interrupted ? "interrupted"
                                        : "did NOT converge")
            << " in " << result.cg.iterations << " iterations" << where << ", residual " << result.cg.relative_residual
            << " (recomputed " << result.cg.true_relative_residual << "); rmse background " << background_rmse
            << " -> analysis " << analysis_rmse << "; " << seconds << " s" << std::endl;
}

// The figures of every 3D-Var record.
std::map<std::string, double> analysis_metrics(const Options& o, long points, std::size_t observations,
                                               const rf::AnalysisResult& result, double seconds, double background_rmse,
                                               double analysis_rmse) {
  return {{"wall_seconds", seconds},
          {"n", static_cast<double>(points)},
          {"k", static_cast<double>(o.iterations)},
          {"observations", static_cast<double>(observations)},
          {"cg_iterations", static_cast<double>(result.cg.iterations)},
          {"cg_relative_residual", result.cg.true_relative_residual},
          {"cg_converged", result.cg.converged ? 1.0 : 0.0},
          {"background_rmse", background_rmse},
          {"analysis_rmse", analysis_rmse}};
}

template <class Space>
void run(const Space& space, const Setup& setup, const std::string& command, pk::Table& table) {
  const Options& o = setup.o;
  const rf::SyntheticSettings& settings = setup.settings;
  const rf::Grid& grid = settings.grid;
  const rf::Chunking& chunking = setup.chunking;
  using Vector = typename rf::SyntheticCase<Space>::Vector;
  const std::string name = pk::SpaceTraits<Space>::name;
  pk::require_memory(space, planned_bytes(grid.size(), settings.observations),
                     problem_name(grid, settings.observations), smaller_grid(settings.observations));
  auto problem = rf::make_synthetic_case(space, settings);
  if (!o.observation_file.empty()) problem.observations = setup.file_observations;
  const auto observations = rf::to_space(space, problem.observations, grid);
  const rf::ThreeDVar<Space> var(space, grid, settings.covariance, observations);
  Vector analysis("pk::3dvar::analysis", grid.size());
  const pk::CheckpointHeader header = run_header(name, setup, 1);
  pk::CheckpointFiles files(o.checkpoint.path, 1, 0);
  std::optional<rf::CgState<Vector>> resume;
  if (!o.checkpoint.restart.empty())
    files.read(o.checkpoint.restart, header,
               [&](pk::CheckpointReader& r) { resume = rf::read_state(r, space, grid.size()); });
  pk::CheckpointSchedule schedule(o.checkpoint, resume ? resume->iterations : 0);
  const auto control = cg_control<Vector>(o, header, files, schedule, resume ? &*resume : nullptr, true,
                                          [](unsigned due) { return due; });
  Kokkos::Timer timer;
  const auto result = var.analyse(problem.background, analysis, o.tolerance, o.max_iterations, control);
  space.fence();
  const double seconds = timer.seconds();
  const double background_rmse = rf::rms_difference(space, problem.background, problem.truth);
  const double analysis_rmse = rf::rms_difference(space, analysis, problem.truth);
#if PK_ENABLE_HDF5
  if (o.h5) write_h5(nullptr, o, name, grid, 0, grid.nx, analysis, problem.background, problem.truth);
#endif

  // The chunked filter along x against the unsplit one, on the truth field.
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename Space::memory_space>;
  Field unsplit("pk::3dvar::unsplit", grid.nx, grid.ny, grid.nz),
      chunked("pk::3dvar::chunked", grid.nx, grid.ny, grid.nz);
  Kokkos::deep_copy(
      space, unsplit,
      Kokkos::View<const double***, Kokkos::LayoutLeft, typename Space::memory_space, Kokkos::MemoryUnmanaged>(
          problem.truth.data(), grid.nx, grid.ny, grid.nz));
  Field source("pk::3dvar::source", grid.nx, grid.ny, grid.nz);
  Kokkos::deep_copy(space, source, unsplit);
  rf::apply_filter(space, unsplit, 0, settings.covariance.per_axis[0]);
  rf::apply_filter_chunked(space, source, chunked, 0, settings.covariance.per_axis[0], chunking);
  space.fence();
  const auto hu = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, unsplit);
  const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, chunked);
  double chunk_error = 0;
  for (std::size_t i = 0; i < hu.size(); ++i)
    chunk_error = std::max(chunk_error, std::abs(hu.data()[i] - hc.data()[i]));

  print_summary(name, result, "", background_rmse, analysis_rmse, seconds);
  table.add_row({name, std::to_string(result.cg.iterations), pk::format_number(result.cg.true_relative_residual, 3),
                 pk::format_number(background_rmse), pk::format_number(analysis_rmse),
                 pk::format_number(chunk_error, 3), pk::format_number(seconds, 3)});
  pk::ResultRecord record{
      "3dvar",
      "synthetic",
      name,
      pk::describe_device(space),
      command,
      analysis_metrics(o, grid.size(), problem.observations.size(), result, seconds, background_rmse, analysis_rmse)};
  record.metrics["chunked_max_difference"] = chunk_error;
  record.metrics["checkpoints"] = files.written();
  record.interrupted = result.cg.interrupted;
  const std::string path = pk::write_result(record, o.out);
  std::cerr << "wrote " << path << '\n';
}

#if PK_ENABLE_MPI
// This rank's slab of a whole-grid vector, x fastest.
template <class Vector>
Vector slab_of(const Vector& whole, const rf::Grid& g, const rf::XSlab& slab) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, whole);
  Vector part(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::3dvar::slab"),
              static_cast<long>(slab.size()) * g.ny * g.nz);
  auto part_host = Kokkos::create_mirror_view(part);
  long i = 0;
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = slab.begin; x < slab.end; ++x) part_host(i++) = host(x + g.nx * (y + static_cast<long>(g.ny) * z));
  Kokkos::deep_copy(part, part_host);
  return part;
}

// sum over ranks of (a - b)^2, as an rms over the whole grid.
template <class Vector>
double rms_over_ranks(const pk::mpi::Communicator& world, const Vector& a, const Vector& b, long points) {
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, b);
  double sum = 0;
  for (std::size_t i = 0; i < ha.size(); ++i) sum += (ha(i) - hb(i)) * (ha(i) - hb(i));
  return std::sqrt(world.sum(sum) / points);
}

// Every rank draws the whole synthetic case (same seed) and keeps its slab.
template <class Space>
void run_distributed(const pk::mpi::Communicator& world, const Space& space, const Setup& setup,
                     const std::string& command) {
  const Options& o = setup.o;
  const rf::Grid& grid = setup.settings.grid;
  const std::string name = pk::SpaceTraits<Space>::name;
  pk::mpi::collectively(world, [&] {  // every rank draws the whole case, then keeps its slab
    pk::require_memory(space, planned_bytes(grid.size(), setup.settings.observations),
                       problem_name(grid, setup.settings.observations),
                       smaller_grid(setup.settings.observations, world.size()));
  });
  auto problem = rf::make_synthetic_case(space, setup.settings);
  if (!o.observation_file.empty()) problem.observations = setup.file_observations;
  std::optional<rf::DistributedThreeDVar<Space>> var;
  pk::mpi::collectively(world, [&] {
    var.emplace(world, space, grid, setup.settings.covariance, setup.chunking.overlap, problem.observations);
  });
  using Vector = typename rf::DistributedThreeDVar<Space>::Vector;
  const Vector background = slab_of(problem.background, grid, var->slab()),
               truth = slab_of(problem.truth, grid, var->slab());
  Vector analysis("pk::3dvar::analysis", background.size());
  const pk::CheckpointHeader header = run_header(name, setup, world.size());
  pk::CheckpointFiles files(o.checkpoint.path, world.size(), world.rank(),
                            [&](const std::function<void()>& body) { pk::mpi::collectively(world, body); });
  std::optional<rf::CgState<Vector>> resume;
  if (!o.checkpoint.restart.empty())
    files.read(o.checkpoint.restart, header, [&](pk::CheckpointReader& r) {
      resume = rf::read_state(r, space, static_cast<std::size_t>(var->cg_size()));
    });
  pk::CheckpointSchedule schedule(o.checkpoint, resume ? resume->iterations : 0);
  // Signals reach the ranks at different times: they agree on what is due, rank 0's clock decides.
  const auto control = cg_control<Vector>(o, header, files, schedule, resume ? &*resume : nullptr, world.rank() == 0,
                                          [&](unsigned due) { return world.bit_or(due); });
  Kokkos::Timer timer;
  const auto before = var->phase_seconds();
  const auto result = var->analyse(background, analysis, o.tolerance, o.max_iterations, control);
  space.fence();
  const double seconds = world.max(timer.seconds());
  const auto after = var->phase_seconds();
  // The slowest rank's share of the solve in each phase.
  using Phases = typename rf::DistributedThreeDVar<Space>::PhaseSeconds;
  const auto share = [&](double Phases::*phase) { return world.max((after.*phase - before.*phase) / seconds); };
  const double communication_share =
      world.max((after.halo_exchanges + after.reductions - before.halo_exchanges - before.reductions) / seconds);
  const std::map<std::string, double> phase_shares{
      {"halo_exchange_share", share(&Phases::halo_exchanges)},
      {"reduction_share", share(&Phases::reductions)},
      {"x_filter_share", share(&Phases::x_filter)},
      {"y_z_filter_share", share(&Phases::y_z_filters)},
      {"observation_operator_share", share(&Phases::observation_operator)}};
  const double background_rmse = rms_over_ranks(world, background, truth, grid.size());
  const double analysis_rmse = rms_over_ranks(world, analysis, truth, grid.size());
#if PK_ENABLE_HDF5
  if (o.h5) write_h5(&world, o, name, grid, var->slab().begin, var->slab().size(), analysis, background, truth);
#endif
  if (world.rank() != 0) return;
  print_summary(name, result,
                " on " + std::to_string(world.size()) + " ranks (x slabs, overlap " +
                    std::to_string(setup.chunking.overlap) + ", " + pk::format_number(100 * communication_share, 2) +
                    " % of the time communicating)",
                background_rmse, analysis_rmse, seconds);
  pk::ResultRecord record{
      "3dvar",
      "synthetic-np" + std::to_string(world.size()),
      name,
      pk::describe_device(space),
      command,
      analysis_metrics(o, grid.size(), problem.observations.size(), result, seconds, background_rmse, analysis_rmse)};
  record.metrics["ranks"] = world.size();
  record.metrics["points_per_rank"] = static_cast<double>(grid.size()) / world.size();
  record.metrics["overlap"] = setup.chunking.overlap;
  record.metrics["communication_share"] = communication_share;
  record.metrics.insert(phase_shares.begin(), phase_shares.end());
  record.metrics["staged_exchange"] = var->staged() ? 1.0 : 0.0;
  record.metrics["checkpoints"] = files.written();
  record.interrupted = result.cg.interrupted;
  std::cerr << "wrote " << pk::write_result(record, o.out) << '\n';
}

// pk-3dvar on several ranks: every rank solves its slab.
void run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  pk::mpi::for_each_space_until_interrupted(world, setup.spaces, [&](const auto& space) {
    const long observations = setup.settings.observations;
    pk::refuse_if_out_of_memory(space, problem_name(setup.settings.grid, observations),
                                smaller_grid(observations, world.size()),
                                [&] { run_distributed(world, space, setup, command); });
  });
}
#endif

// pk-3dvar on one process: each space in turn, then a table of them all.
void run_spaces(const Setup& setup, const std::string& command) {
  pk::Table table(
      {"space", "cg iterations", "residual", "background rmse", "analysis rmse", "chunked-unsplit", "seconds"});
  pk::for_each_space_until_interrupted(setup.spaces, [&](const auto& space) {
    const long observations = setup.settings.observations;
    pk::refuse_if_out_of_memory(space, problem_name(setup.settings.grid, observations), smaller_grid(observations),
                                [&] { run(space, setup, command, table); });
  });
  std::cout << '\n';
  table.print(std::cout);
}

}  // namespace

int main(int argc, char** argv) {
#if PK_ENABLE_MPI
  return pk::program_main("pk-3dvar", argc, argv, parse, run_spaces, run_ranks);
#else
  return pk::program_main("pk-3dvar", argc, argv, parse, run_spaces);
#endif
}
