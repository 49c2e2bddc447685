#pragma once
// The D3Q19 BGK lattice Boltzmann solver, templated on the execution space it runs on, on
// the precision of the distributions (float by default; double; pk::Binary16 or
// pk::Compact16: 16-bit storage with fp32 arithmetic) and on how its kernels cover the
// lattice (Traversal; by default rows on CPUs, cells on GPUs).
//
//   pk::lbm::Solver<Kokkos::OpenMP> solver(space, pk::lbm::box_channel(64, 32, 32), parameters);
//   solver.advance(1000);                  // throws pk::Error when the flow blows up
//   pk::lbm::HostFields fields = solver.fields();
//
// One step = streaming + collision of every non-solid cell, with the boundary rules listed
// in geometry.hpp. A-A (one lattice) and A-B (two lattices) take identical steps; only the
// memory traffic pattern differs (see details/storage.hpp).
//
// Health checks: every parameters.check_interval steps a reduction looks for a cell whose
// density is NaN or not positive or whose |u| / c_s exceeds max_mach; the first such cell
// (lowest index) stops the run with a pk::Error naming the step and the cell. Between
// checks a bad value can spread for at most check_interval - 1 steps.
#include <pk/core/error.hpp>
#include <pk/core/tuning.hpp>
#include <pk/lbm/details/cell_state.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/staged_collide.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/details/stream_collide_rows.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/slabs.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace pk::lbm {

// How the step kernels cover the lattice. rows: a thread per x-row, runs of plain cells in
// SIMD loops (CPUs). cells: a thread per cell; an A-A lattice computing in fp32 may be in
// shifted storage with its even step staged per team (GPUs; see Parameters::aa_storage,
// Details::slot and Details::StagedCollide). Either runs on any space, and both take
// identical steps.
enum class Traversal { rows, cells };
template <class ExecutionSpace>
constexpr Traversal default_traversal = runs_on_host<ExecutionSpace> ? Traversal::rows : Traversal::cells;

// The name of a precision in apps and results: "fp32", "fp64", "fp16" for pk::Binary16 or
// "fp16c" for pk::Compact16 (16-bit storage, fp32 arithmetic).
template <class Precision>
constexpr const char* precision_name = std::is_same_v<Precision, double>     ? "fp64"
                                       : std::is_same_v<Precision, float>    ? "fp32"
                                       : std::is_same_v<Precision, Binary16> ? "fp16"
                                                                             : "fp16c";

template <class ExecutionSpace, class Precision = float, Traversal traversal = default_traversal<ExecutionSpace>>
class Solver {
  static_assert(std::is_same_v<Precision, float> || std::is_same_v<Precision, double> ||
                    std::is_same_v<Precision, Binary16> || std::is_same_v<Precision, Compact16>,
                "precision: float, double, pk::Binary16 or pk::Compact16");

 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using storage_type = Details::storage_t<Precision, ExecutionSpace>;
  using real_type = Details::arithmetic_t<storage_type>;  // what the kernels compute in
  using Distributions = Details::Lattice<storage_type, memory_space>;

  // Minimum memory traffic of one cell update: 19 populations read and 19 written.
  static constexpr std::size_t bytes_per_update = 2 * D3Q19::size * sizeof(storage_type);

  // Validates geometry and parameters (pk::Error), allocates the lattice(s) on `space` and
  // sets every cell to equilibrium: inlet/outlet cells at their prescribed density, the
  // others at initial_density, all at initial_velocity. The non-solid cells of `ghosts`
  // (a rank's lattice in a distributed run, see slabs.hpp) are never updated.
  Solver(const ExecutionSpace& space, const Geometry& geometry, const Parameters& parameters,
         const GhostLayers& ghosts = {})
      : space_(space), geometry_(geometry), parameters_(parameters) {
    geometry_.validate();
    validate(parameters_, geometry_);
    shifted_ = choose_shifted_storage();  // before any allocation: tuning may time scratch lattices
    const int cells = static_cast<int>(geometry_.cell_count());
    Kokkos::View<std::uint8_t*, memory_space> cell_type(Kokkos::view_alloc(space_, "pk::lbm::cell_type"), cells);
    auto cell_type_host = Kokkos::create_mirror_view(cell_type);
    const int last_layer = geometry_.extent(ghosts.axis) - 1;
    for (int c = 0; c < cells; ++c) {
      const CellType type = geometry_.cells()[c];
      const int at[3] = {c % geometry_.nx(), c / geometry_.nx() % geometry_.ny(), c / geometry_.nx() / geometry_.ny()};
      const int layer = at[ghosts.axis];
      const bool ghost = (ghosts.low && layer == 0) || (ghosts.high && layer == last_layer);
      const bool beside_wrap = (ghosts.wraps_low && layer == 1) || (ghosts.wraps_high && layer == last_layer - 1);
      using G = Details::Grid<memory_space>;
      cell_type_host(c) = static_cast<std::uint8_t>(type == CellType::solid ? Details::solid_flag
                                                    : ghost                 ? Details::solid_flag | G::ghost_bit
                                                    : beside_wrap ? static_cast<std::uint8_t>(type) | G::walls_bit
                                                                  : static_cast<std::uint8_t>(type));
    }
    Kokkos::deep_copy(space_, cell_type, cell_type_host);
    Kokkos::View<std::uint32_t*, memory_space> walls(Kokkos::view_alloc(space_, "pk::lbm::walls"), cells);
    grid_ = Details::Grid<memory_space>{cell_type,
                                        walls,
                                        {},
                                        geometry_.nx(),
                                        geometry_.ny(),
                                        geometry_.nz(),
                                        geometry_.periodic(0),
                                        geometry_.periodic(1),
                                        geometry_.periodic(2)};
    Kokkos::parallel_for("pk::lbm::build_walls", policy(), Details::BuildWalls<memory_space>{grid_});
    Kokkos::parallel_for("pk::lbm::mark_walls", policy(), Details::MarkWalls<memory_space>{grid_});
    split_by_walls_ = choose_split_by_walls();
    const int slots = lattice_slots(cells);
    // Zeroed: the slots no step writes (pads, margins) are then the same in every run, and
    // so are checkpoints of the same state (checkpoint.hpp).
    f_ = Distributions(Kokkos::view_alloc(space_, "pk::lbm::f"), slots, D3Q19::size);
    if (parameters_.streaming == Streaming::ab)
      f_next_ = Distributions(Kokkos::view_alloc(space_, "pk::lbm::f_next"), slots, D3Q19::size);
    const auto& p = parameters_;
    const Details::ParameterState<memory_space> initial{
        cell_type,
        p.inlet_density,
        p.outlet_density,
        p.initial_density,
        {p.initial_velocity[0], p.initial_velocity[1], p.initial_velocity[2]}};
    streaming_stores_ = choose_streaming_stores(initial);
    initialize_with(initial);
  }

  // Restarts from step 0 at the equilibrium of the density and velocity a device-callable
  // `state` gives each cell (see Details::Initialize): large lattices start without a
  // host copy of their fields.
  template <class State>
  void initialize_with(const State& state) {
    steps_ = 0;
    Kokkos::parallel_for(
        "pk::lbm::initialize", policy(),
        Details::Initialize<ExecutionSpace, storage_type, State>{f_, grid_, layout(), shifted(), state});
    space_.fence();
  }

  // Restarts from step 0 at the equilibrium of the given fields: density one per cell,
  // velocity three per cell, x fastest. Values are not checked here (the health check
  // catches them), so that tests can plant bad ones.
  void initialize(const std::vector<double>& density, const std::vector<double>& velocity) {
    const std::size_t cells = static_cast<std::size_t>(geometry_.cell_count());
    require(density.size() == cells && velocity.size() == 3 * cells,
            "pk::lbm::Solver::initialize: need one density and three velocity components per cell (", cells, " cells)");
    auto fields = field_buffer();
    auto host = Kokkos::create_mirror_view(fields);
    for (std::size_t c = 0; c < cells; ++c) {
      host(c, 0) = density[c];
      for (int k = 0; k < 3; ++k) host(c, k + 1) = velocity[3 * c + k];
    }
    Kokkos::deep_copy(space_, fields, host);
    initialize_with(Details::FieldState<memory_space>{fields});
  }

  // Takes `steps` time steps, checking the flow's health every check_interval steps.
  void advance(std::int64_t steps) {
    require(steps >= 0, "pk::lbm::Solver::advance: steps must be >= 0");
    for (std::int64_t s = 0; s < steps; ++s) {
      step();
      if (parameters_.check_interval > 0 && steps_ % parameters_.check_interval == 0) check_health();
    }
  }

  // Throws pk::Error when a cell has a NaN or non-positive density or |u|/c_s > max_mach.
  void check_health() const {
    const int first = first_unhealthy_cell();
    if (first >= 0) throw Error(unhealthy_message(first));
  }

  // The lowest cell with a NaN or non-positive density or |u|/c_s > max_mach, -1 when none.
  int first_unhealthy_cell() const {
    int first = INT_MAX;
    const real_type max_u = static_cast<real_type>(parameters_.max_mach * std::sqrt(D3Q19::cs2));
    Kokkos::parallel_reduce(
        "pk::lbm::check_health", policy(),
        Details::FirstUnhealthyCell<ExecutionSpace, storage_type>{f_, grid_, layout(), shifted(), max_u * max_u},
        Kokkos::Min<int>(first));
    return first == INT_MAX ? -1 : first;
  }

  // What is wrong with cell `first`, naming it at its coordinates plus `origin` (a rank's
  // lattice names cells of the whole one).
  std::string unhealthy_message(int first, const std::array<int, 3>& origin = {0, 0, 0}) const {
    const HostFields now = fields();
    const int x = first % geometry_.nx() + origin[0], y = first / geometry_.nx() % geometry_.ny() + origin[1],
              z = first / geometry_.nx() / geometry_.ny() + origin[2];
    const double rho = now.density[first];
    const double* u = &now.velocity[3 * static_cast<std::size_t>(first)];
    const double speed = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    std::ostringstream what;
    what << "pk::lbm: at step " << steps_ << ", cell (" << x << ", " << y << ", " << z << "): ";
    if (std::isnan(rho) || std::isnan(speed))
      what << "density or velocity is NaN";
    else if (rho <= 0)
      what << "density " << rho << " is not positive";
    else
      what << "Mach number " << speed / std::sqrt(D3Q19::cs2) << " exceeds the limit " << parameters_.max_mach;
    what << " (health checked every " << parameters_.check_interval
         << " steps); the flow is unstable: raise tau, lower the pressure drop or refine the lattice";
    return what.str();
  }

  // Density and velocity of every cell, as the last collision saw them, on the host.
  HostFields fields() const {
    auto buffer = field_buffer();
    Kokkos::parallel_for("pk::lbm::moments", policy(),
                         Details::Moments<ExecutionSpace, storage_type>{f_, grid_, layout(), shifted(), buffer});
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, buffer);
    HostFields out;
    out.nx = geometry_.nx();
    out.ny = geometry_.ny();
    out.nz = geometry_.nz();
    out.step = steps_;
    const std::size_t cells = static_cast<std::size_t>(geometry_.cell_count());
    out.density.resize(cells);
    out.velocity.resize(3 * cells);
    for (std::size_t c = 0; c < cells; ++c) {
      out.density[c] = host(c, 0);
      for (int k = 0; k < 3; ++k) out.velocity[3 * c + k] = host(c, k + 1);
    }
    return out;
  }

  // Post-collision populations f*_q of the last step, index q * cells + cell, 0 in solid
  // cells: the same numbers whatever the streaming pattern.
  std::vector<double> distributions() const {
    const int cells = static_cast<int>(geometry_.cell_count());
    Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> buffer(
        Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::lbm::post_collision"), cells, D3Q19::size);
    Kokkos::parallel_for(
        "pk::lbm::post_collision", policy(),
        Details::PostCollisionCopy<ExecutionSpace, storage_type>{f_, grid_, layout(), shifted(), buffer});
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, buffer);
    return std::vector<double>(host.data(), host.data() + host.size());
  }

  std::int64_t step_count() const { return steps_; }
  // The lattice as stored (checkpoint.hpp): a restart writes it back and sets the step count.
  const Distributions& lattice() const { return f_; }
  void set_step_count(std::int64_t steps) { steps_ = steps; }
  const Geometry& geometry() const { return geometry_; }
  const Parameters& parameters() const { return parameters_; }
  const ExecutionSpace& space() const { return space_; }
  // Whether the lattice is in shifted storage (Details::slot), as Parameters::aa_storage
  // asked or pk::autotune chose for the device.
  bool shifted_storage() const { return shifted_; }
  // Whether whole-lattice streaming steps run in two passes, cells without walls and then
  // the groups with walls (choose_split_by_walls).
  bool split_by_walls() const { return split_by_walls_; }
  // Whether A-B steps of the rows traversal store around the caches, as
  // Parameters::ab_stores asked or pk::autotune chose (choose_streaming_stores).
  bool streaming_stores() const { return streaming_stores_; }

 private:
  // A rank's solver in a distributed run: steps one at a time and exchanges ghost layers.
  template <class, class, Traversal>
  friend class DistributedSolver;

  Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>> policy() const {
    return Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>(space_, 0,
                                                                       static_cast<int>(geometry_.cell_count()));
  }
  // The A-A odd step in fp32 arithmetic (fp32 or fp16 storage) is register-bound: bounded
  // launches keep more of it resident per SM. fp64 A-A and A-B keep Kokkos' choice, which
  // was faster for them (docs/lbm.md).
  static constexpr bool bounded_steps = std::is_same_v<real_type, float>;
  using AaPolicy = Kokkos::RangePolicy<
      ExecutionSpace, Kokkos::IndexType<int>,
      std::conditional_t<bounded_steps, typename Details::Launch<ExecutionSpace>::Bounds, Kokkos::LaunchBounds<>>>;
  AaPolicy aa_policy() const { return AaPolicy(space_, 0, static_cast<int>(geometry_.cell_count())); }
  Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> field_buffer() const {
    return Kokkos::View<double**, Kokkos::LayoutLeft, memory_space>(
        Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::lbm::fields"), geometry_.cell_count(), 4);
  }
  // Shifted storage is for A-A lattices of the cells traversal computing in fp32: the staged
  // even step's register cap (Details::Launch) is sized for it, and fp64 was faster plain.
  static constexpr bool can_shift = traversal == Traversal::cells && std::is_same_v<real_type, float>;

  bool choose_shifted_storage() const {
    const AaStorage asked = parameters_.aa_storage;
    require(asked != AaStorage::shifted || can_shift,
            "pk::lbm::Solver: shifted storage needs the cells traversal and fp32 arithmetic (fp32 or fp16 storage)");
    if constexpr (can_shift) {
      if (parameters_.streaming != Streaming::aa) return false;
      if (asked != AaStorage::tuned) return asked == AaStorage::shifted;
      // fp32 storage: shifted by default (what PK_AUTOTUNE=0 takes), the faster on the H100;
      // device spaces time both. fp16 storage: plain, untimed. Shifted, its even step
      // misaligns every 2-byte access; it lost at every size on the H100 and the H200, but
      // tied at the trial's 128^3, where a trial once picked it (17 % slower from 256^3 up,
      // docs/lbm.md). Host spaces take the defaults untimed.
      constexpr bool fp32_storage = std::is_same_v<storage_type, float>;
      if constexpr (runs_on_host<ExecutionSpace>)
        return fp32_storage;
      else
        return fp32_storage && tuned_shifted_storage(space_);
    }
    return false;
  }

  // pk::autotune's choice between shifted (1, the default) and plain (0) storage for this
  // precision on the device behind `space`, timed on scratch lattices of 128^3 cells (eight
  // steps each; two, a fifth of a millisecond, let the H200 pick the storage 4 % slower at
  // every size), which are freed before the solver allocates its own.
  static bool tuned_shifted_storage(const ExecutionSpace& space) {
    std::optional<Solver> scratch[2];
    const auto trial = [&](int candidate) {
      if (!scratch[candidate]) {  // built in autotune's untimed warm-up run
        Parameters p;
        p.check_interval = 0;
        p.aa_storage = candidate == 1 ? AaStorage::shifted : AaStorage::plain;
        scratch[candidate].emplace(space, periodic_box(128, 128, 128), p);
      }
      scratch[candidate]->advance(8);
    };
    return autotune(space, std::string("lbm.aa.shifted.") + precision_name<Precision>, {1, 0}, trial) == 1;
  }

  // Streaming stores save a read of each target line where the lattices overflow the caches
  // and cost one where they fit (2-core Xeon VM, fp32 A-B: 128^3 1.4 times as fast, 64^3
  // 0.67 times), so tuned, both are timed on this solver's own lattices, started at
  // `initial`: a run is pairs of steps, f_ into f_next_ and back, so that each reads what
  // the one before stored, as real steps do, and at least 2^23 cell updates (runs of one
  // pair at 64^3 picked streaming stores, 17 % slower). The constructor then starts the
  // lattice again. PK_AUTOTUNE=0 takes cached stores.
  template <class State>
  bool choose_streaming_stores(const State& initial) {
    if constexpr (traversal == Traversal::rows) {
      if (parameters_.streaming != Streaming::ab) return false;
      if (parameters_.ab_stores != AbStores::tuned) return parameters_.ab_stores == AbStores::streaming;
      const long pairs = std::max(1L, (1L << 22) / static_cast<long>(geometry_.cell_count()));
      bool started = false;  // a choice autotune has cached runs no trial and needs no start
      const auto trial = [&](int candidate) {
        if (!started) {  // autotune's untimed warm-up run
          initialize_with(initial);
          started = true;
        }
        streaming_stores_ = candidate == 1;
        for (long pair = 0; pair < pairs; ++pair) {
          launch<Details::Kernel::ab_stream_collide>("pk::lbm::ab::store_trial", f_, f_next_, nullptr);
          launch<Details::Kernel::ab_stream_collide>("pk::lbm::ab::store_trial", f_next_, f_, nullptr);
        }
      };
      const std::string key =
          std::string("lbm.ab.streaming.") + precision_name<Precision> + ".slots=" + std::to_string(f_.size());
      return autotune(space_, key, {0, 1}, trial) == 1;
    }
    return false;
  }

  // Whether the whole-lattice streaming steps (A-B, A-A odd) run split by walls: the cells
  // the open path can step (OpenCells: no wall link, no periodic y or z face), then the
  // groups of cells with such walls (WalledCells, Details::cell_group). This pays where the
  // step is bound by its instructions, fp16 storage on GPUs (its 2-byte loads and stores
  // carry half the bytes per instruction), and where few groups have walls; fp32 and fp64
  // steps are bound by memory, and the second pass cost them (docs/lbm.md).
  static constexpr bool can_split_by_walls = traversal == Traversal::cells && sizeof(storage_type) == 2;
  bool choose_split_by_walls() {
    if constexpr (can_split_by_walls) {
      // A small lattice steps in a few microseconds, where the walled pass's launch costs
      // more than the tests it saves (H100, fp16 A-A: 64^3 went from 0.67 to 0.52 of the
      // roofline split, 128^3 from 0.51 to 0.68).
      if (geometry_.cell_count() < (std::int64_t{1} << 19)) return false;
      constexpr int group = Details::cell_group<ExecutionSpace>;
      const int groups = (static_cast<int>(geometry_.cell_count()) + group - 1) / group;
      using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>;
      int walled = 0;
      Kokkos::parallel_scan("pk::lbm::count_walled_groups", Range(space_, 0, groups),
                            Details::ListWalledGroups<ExecutionSpace>{grid_}, walled);
      // Where walls reach most groups (short x rows between walls), one pass is faster.
      if (3 * walled > groups) return false;
      grid_.walled_groups =
          Kokkos::View<int*, memory_space>(Kokkos::view_alloc(space_, "pk::lbm::walled_groups"), walled);
      if (walled == 0) return true;
      Kokkos::parallel_scan("pk::lbm::list_walled_groups", Range(space_, 0, groups),
                            Details::ListWalledGroups<ExecutionSpace>{grid_});
      Kokkos::parallel_for("pk::lbm::mark_walled_groups", Range(space_, 0, walled * group),
                           Details::MarkWalledGroups<ExecutionSpace>{grid_});
      return true;
    }
    return false;
  }

  bool shifted() const { return shifted_; }
  // Slots per direction: the cells, shifted storage's margins, and a pad. On host spaces it
  // starts consecutive directions 3 cache lines apart modulo 4 KiB: unpadded, a lattice of
  // 2^k cells starts all 19 (A-B: 38) directions at the same address modulo 4 KiB, the span
  // of a CPU's L1 ways, so a row's streams evict each other. On GPUs it starts every
  // direction on a 128-byte line, so that a warp's accesses span as few lines as they can
  // (and the paired even step's words are aligned).
  int lattice_slots(int cells) const {
    int slots = cells + (shifted() ? 2 * Details::margin : 0);
    if constexpr (runs_on_host<ExecutionSpace>) {
      constexpr int period = 4096 / static_cast<int>(sizeof(storage_type));
      constexpr int offset = 3 * 64 / static_cast<int>(sizeof(storage_type));
      slots += ((offset - slots) % period + period) % period;
    } else {
      constexpr int line = 128 / static_cast<int>(sizeof(storage_type));
      slots += (line - slots % line) % line;
    }
    return slots;
  }
  Details::Layout layout() const {
    if (parameters_.streaming == Streaming::ab) return Details::Layout::home;
    return steps_ % 2 == 0 ? Details::Layout::streamed : Details::Layout::swapped;
  }

  void step() {
    step_cells(nullptr);
    end_step();
  }

  // This step's kernel on the cells of `box`, or on every cell (nullptr); end_step() then
  // completes the step.
  void step_cells(const Details::CellBox* box) {
    using Details::Kernel;
    if (parameters_.streaming == Streaming::ab)
      launch<Kernel::ab_stream_collide>("pk::lbm::ab::stream_collide", f_, f_next_, box);
    else if (steps_ % 2 == 0)  // the paper's A-A:1
      launch<Kernel::aa_collide>("pk::lbm::aa::collide", f_, f_, box);
    else  // A-A:2
      launch<Kernel::aa_stream_collide_stream>("pk::lbm::aa::stream_collide_stream", f_, f_, box);
  }

  void end_step() {
    if (parameters_.streaming == Streaming::ab) std::swap(f_, f_next_);
    ++steps_;
  }

  // The lattice and layout the step under way leaves.
  const Distributions& lattice_after_step() const { return parameters_.streaming == Streaming::ab ? f_next_ : f_; }
  Details::Layout layout_after_step() const {
    if (parameters_.streaming == Streaming::ab) return Details::Layout::home;
    return steps_ % 2 == 0 ? Details::Layout::swapped : Details::Layout::streamed;
  }

  // The kernel for the lattice's storage, chosen at launch: each storage has its own
  // instantiation, so the kernels carry no run-time test of it.
  template <Details::Kernel kernel>
  void launch(const char* label, const Distributions& source, const Distributions& target,
              const Details::CellBox* box) const {
    if constexpr (can_shift && kernel != Details::Kernel::ab_stream_collide)
      if (shifted_) return launch_on<kernel, true>(label, source, target, box);
    launch_on<kernel, false>(label, source, target, box);
  }

  // The A-A even step in shifted fp32 storage stages rows of cells through a team's
  // scratch; a box narrower in x than a team (the layer beside a ghost layer of a slab cut
  // along x) runs per cell instead of a team per cell, and so does fp16, whose staged step
  // took 1.6 times as long (docs/lbm.md).
  template <Details::Kernel kernel, bool in_shifted_storage>
  static bool staged_even_step(const Details::CellBox* box) {
    if constexpr (kernel == Details::Kernel::aa_collide && in_shifted_storage) {
      return std::is_same_v<storage_type, float> &&
             (!box || box->x1 - box->x0 >= Details::StagedCollide<ExecutionSpace, storage_type>::max_chunk);
    }
    return false;
  }

  // The A-A even step of a whole fp16 lattice in plain storage, cells traversal, takes two
  // cells per thread (Details::PairedCollide): each load and store then moves 4 bytes, not 2.
  static constexpr bool can_pair = traversal == Traversal::cells && sizeof(storage_type) == 2;
  template <Details::Kernel kernel, bool in_shifted_storage>
  bool paired_even_step() const {
    return can_pair && kernel == Details::Kernel::aa_collide && !in_shifted_storage && f_.stride(1) % 2 == 0;
  }

  template <Details::Kernel kernel, bool in_shifted_storage>
  void launch_on(const char* label, const Distributions& source, const Distributions& target,
                 const Details::CellBox* box) const {
    using Cells = Details::StreamCollide<ExecutionSpace, storage_type, kernel, in_shifted_storage>;
    using Rows = Details::StreamCollideRows<ExecutionSpace, storage_type, kernel>;
    using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>;
    const Cells cells{source,
                      target,
                      grid_,
                      static_cast<real_type>(1.0 / parameters_.tau),
                      static_cast<real_type>(parameters_.inlet_density - 1.0),
                      static_cast<real_type>(parameters_.outlet_density - 1.0)};
    if constexpr (traversal == Traversal::rows) {
      if (box)
        Kokkos::parallel_for(label, Range(space_, 0, box->rows()),
                             Details::BoxRows<Rows>{Rows{cells, streaming_stores_}, *box});
      else
        Kokkos::parallel_for(label, Range(space_, 0, geometry_.ny() * geometry_.nz()), Rows{cells, streaming_stores_});
    } else if (staged_even_step<kernel, in_shifted_storage>(box)) {
      if constexpr (kernel == Details::Kernel::aa_collide && in_shifted_storage)
        Details::StagedCollide<ExecutionSpace, storage_type>::launch(
            label, space_, cells,
            box ? *box : Details::CellBox{0, geometry_.nx(), 0, geometry_.ny(), 0, geometry_.nz()});
    } else if (box) {
      if constexpr (kernel == Details::Kernel::ab_stream_collide)
        Kokkos::parallel_for(label, Range(space_, 0, box->cells()), Details::BoxCells<Cells>{cells, *box});
      else
        Kokkos::parallel_for(label, AaPolicy(space_, 0, box->cells()), Details::BoxCells<Cells>{cells, *box});
    } else if (paired_even_step<kernel, in_shifted_storage>()) {
      if constexpr (can_pair && kernel == Details::Kernel::aa_collide && !in_shifted_storage) {
        const int count = static_cast<int>(geometry_.cell_count());
        Kokkos::parallel_for(label, AaPolicy(space_, 0, (count + 1) / 2), Details::PairedCollide<Cells>{cells, count});
      }
    } else if (split_by_walls_ && kernel != Details::Kernel::aa_collide) {
      if constexpr (can_split_by_walls && kernel != Details::Kernel::aa_collide) {
        if constexpr (kernel == Details::Kernel::ab_stream_collide)
          Kokkos::parallel_for(label, policy(), Details::OpenCells<Cells>{cells});
        else
          Kokkos::parallel_for(label, aa_policy(), Details::OpenCells<Cells>{cells});
        const int walled_cells = grid_.walled_groups.extent_int(0) * Details::cell_group<ExecutionSpace>;
        if (walled_cells > 0)
          Kokkos::parallel_for(label, Range(space_, 0, walled_cells), Details::WalledCells<Cells>{cells});
      }
    } else if constexpr (kernel == Details::Kernel::ab_stream_collide) {
      Kokkos::parallel_for(label, policy(), cells);
    } else {
      Kokkos::parallel_for(label, aa_policy(), cells);
    }
  }

  ExecutionSpace space_;
  Geometry geometry_;
  Parameters parameters_;
  Details::Grid<memory_space> grid_;
  bool shifted_ = false;  // the lattice is in shifted storage (Details::slot)
  bool split_by_walls_ = false;
  bool streaming_stores_ = false;
  Distributions f_, f_next_;
  std::int64_t steps_ = 0;
};

}  // namespace pk::lbm
