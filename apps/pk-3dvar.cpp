// pk-3dvar: a synthetic 3D-Var analysis. A smooth truth on a grid, a background whose
// error has the recursive-filter Gaussian covariance B = V V^T, noisy observations at
// random points (or read from a file); CG solves (I + V^T H^T R^-1 H V) v = V^T H^T R^-1 d.
// Built with MPI and started on several ranks (mpirun -np N pk-3dvar ...), it splits the
// grid along x, one overlapped chunk per rank (pk/rfilter/distributed_three_dvar.hpp).
// Checkpoints of CG's state and restarts (--checkpoint, --restart) continue a solve bit for
// bit (docs/jobs.md).
#include <pk/app/cli.hpp>
#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/app/table.hpp>
#include <pk/core/atomic_file.hpp>
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
#include <pk/app/mpi_program.hpp>
#include <pk/rfilter/distributed_three_dvar.hpp>
#endif
#if PK_ENABLE_HDF5
#include <pk/hdf5/fields.hpp>
#else
#define PK_ENABLE_HDF5 0
#endif

namespace {

// Bounds that keep a run finite: the filter's cost grows with K, CG's with its iterations.
constexpr int max_k = 100, max_cg_iterations = 100000;
constexpr double max_sigma = 1e6;  // grid cells: beyond any grid, and the default overlap stays an int

// Bytes a run holds per grid point and per observation: the fields, CG's and the chunked
// check's vectors (16 doubles a point); observations on host and device (16 doubles each).
double planned_bytes(long points, long observations) { return 8.0 * 16 * (points + observations); }

// "a NX x NY x NZ grid with M observations", as messages name a run.
std::string problem_name(const pk::rfilter::Grid& grid, long observations) {
  return "a " + std::to_string(grid.nx) + " x " + std::to_string(grid.ny) + " x " + std::to_string(grid.nz) +
         " grid with " + std::to_string(observations) + " observations";
}

// The grid points that fit in the bytes a run may use on each of `ranks`, and what to lower.
pk::MemoryAdvice smaller_grid(long observations, int ranks = 1) {
  return [=](double bytes) {
    return "about " + std::to_string(static_cast<long long>(bytes / planned_bytes(1, 0)) - observations) +
           " grid points fit: use a smaller --grid" + (ranks > 1 ? " or more ranks" : "");
  };
}

struct Options {
  std::string space = "all", out = "pk-results", observation_file;
  std::vector<int> grid{64, 64, 16};
  std::vector<double> sigma{3.0};
  int iterations = 4;  // K
  long observations = 2000;
  double observation_std = 0.1, background_std = 0.5, tolerance = 1e-6;
  int max_iterations = 500;
  int chunks = 4;              // the chunked-filter check along x
  std::optional<int> overlap;  // default: 2.5 sigma
  unsigned long seed = 7;
  bool h5 = false;  // the fields as HDF5
  pk::CheckpointOptions checkpoint;
};

namespace rf = pk::rfilter;

// The command line, checked before Kokkos starts.
struct Setup {
  Options o;
  rf::SyntheticSettings settings;
  rf::ObservationSet file_observations;
  rf::Chunking chunking;
  std::vector<std::string> spaces, kokkos_args;
};

// Nothing when --help was answered; pk::Error for bad input.
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

// The header of this run's checkpoints: the options that define the analysis (on several
// ranks also the overlap, which changes V).
pk::CheckpointHeader run_header(const std::string& space, const Setup& setup, int ranks) {
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
  if (pk::interrupted()) return;
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
// Returns whether SIGINT or SIGTERM (on any rank) stopped CG.
template <class Space>
bool run_distributed(const pk::mpi::Communicator& world, const Space& space, const Setup& setup,
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
  if (world.rank() != 0) return result.cg.interrupted;
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
  return result.cg.interrupted;
}

// pk-3dvar on several ranks: every rank solves its slab.
int run_ranks(const pk::mpi::Communicator& world, const Setup& setup, const std::string& command) {
  bool stopped = false;
  pk::for_each_selected_space(setup.spaces, [&](const auto& space) {
    if (stopped) return;
    const long observations = setup.settings.observations;
    stopped = pk::refuse_if_out_of_memory(space, problem_name(setup.settings.grid, observations),
                                          smaller_grid(observations, world.size()),
                                          [&] { return run_distributed(world, space, setup, command); });
  });
  // Every rank exits as the signalled ones do (143 for SIGTERM), or 0.
  return stopped ? static_cast<int>(world.max(pk::interrupted() ? pk::interrupted_status() : 0)) : 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  pk::bind_openmp_threads_by_default(argv);
#if PK_ENABLE_MPI
  pk::mpi::Environment mpi(argc, argv);
  if (mpi.ranks() > 1) return pk::mpi::run_program("pk-3dvar", argc, argv, parse, run_ranks);
#endif
  return pk::run_app("pk-3dvar", [&] {
    // Everything is checked before Kokkos starts.
    const std::optional<Setup> setup = parse(argc, argv);
    if (!setup) return 0;
    pk::Session session(setup->kokkos_args);
    pk::catch_interrupts();
    const std::string command = pk::command_line(argc, argv);
    pk::Table table(
        {"space", "cg iterations", "residual", "background rmse", "analysis rmse", "chunked-unsplit", "seconds"});
    pk::for_each_selected_space(setup->spaces, [&](const auto& space) {
      const long observations = setup->settings.observations;
      pk::refuse_if_out_of_memory(space, problem_name(setup->settings.grid, observations), smaller_grid(observations),
                                  [&] { run(space, *setup, command, table); });
    });
    std::cout << '\n';
    table.print(std::cout);
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
