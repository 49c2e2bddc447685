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
// One step = streaming + collision of every non-solid cell (boundary rules: geometry.hpp).
// A-A (one lattice) and A-B (two) take identical steps, with different traffic (storage.hpp);
// the kernels a step launches are chosen once per lattice (details/step_plan.hpp). Every
// parameters.check_interval steps a health check looks for a cell whose density is NaN or
// not positive or whose |u| / c_s exceeds max_mach; the first (lowest index) stops the run
// with a pk::Error naming the step and the cell.
#include <pk/core/checks.hpp>
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/lbm/details/cell_state.hpp>
#include <pk/lbm/details/field_buffers.hpp>
#include <pk/lbm/details/health.hpp>
#include <pk/lbm/details/step_plan.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/slabs.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace pk::lbm {

template <class ExecutionSpace, class Precision = float, Traversal traversal = default_traversal<ExecutionSpace>>
class Solver {
  static_assert(check_arguments<ExecutionSpace>());
  static_assert(std::is_same_v<Precision, float> || std::is_same_v<Precision, double> ||
                    std::is_same_v<Precision, Binary16> || std::is_same_v<Precision, Compact16>,
                "pk::lbm::Solver<ExecutionSpace, Precision>: precision float, double, pk::Binary16 or pk::Compact16");

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
      : space_(space),
        geometry_(checked(geometry, parameters)),
        parameters_(parameters),
        plan_(space, parameters, static_cast<int>(geometry.cell_count())) {
    plan_.choose_shifted_storage();
    grid_ = Details::build_grid(space_, geometry_, ghosts);
    plan_.choose_split_by_walls(grid_);
    const int slots = plan_.lattice_slots();
    // Zeroed: the slots no step writes (pads, margins) are then the same in every run, and
    // so are checkpoints of the same state (checkpoint.hpp).
    f_ = Distributions(Kokkos::view_alloc(space_, "pk::lbm::f"), slots, D3Q19::size);
    if (parameters_.streaming == Streaming::ab)
      f_next_ = Distributions(Kokkos::view_alloc(space_, "pk::lbm::f_next"), slots, D3Q19::size);
    const auto& p = parameters_;
    const Details::ParameterState<memory_space> initial{
        grid_.cell_type,
        p.inlet_density,
        p.outlet_density,
        p.initial_density,
        {p.initial_velocity[0], p.initial_velocity[1], p.initial_velocity[2]}};
    const auto restart = [&] { initialize_with(initial); };
    const auto trial_pairs = [&](long pairs) { plan_.step_pairs(pairs, grid_, f_, f_next_); };
    if (plan_.choose_tuned_storage(f_.size(), precision_name<Precision>, restart, trial_pairs)) {
      f_ = Distributions();  // freed first: the lattice may fill the device
      f_ = Distributions(Kokkos::view_alloc(space_, "pk::lbm::f"), plan_.lattice_slots(), D3Q19::size);
    }
    plan_.choose_launches(f_.size(), precision_name<Precision>, restart, trial_pairs);
    initialize_with(initial);
  }

  // Restarts from step 0 at the equilibrium of the density and velocity a device-callable
  // `state` gives each cell (see Details::Initialize): large lattices start without a
  // host copy of their fields.
  template <class State>
  void initialize_with(const State& state) {
    steps_ = 0;
    Kokkos::parallel_for("pk::lbm::initialize", policy(),
                         Details::Initialize<ExecutionSpace, storage_type, State>{lattice_cells(), state});
    space_.fence();
  }

  // Restarts from step 0 at the equilibrium of the given fields: density one per cell,
  // velocity three per cell, x fastest. Values are not checked here (the health check
  // catches them), so that tests can plant bad ones.
  void initialize(const std::vector<double>& density, const std::vector<double>& velocity) {
    require(density.size() == static_cast<std::size_t>(geometry_.cell_count()),
            "pk::lbm::Solver::initialize: need one density and three velocity components per cell (",
            geometry_.cell_count(), " cells)");
    initialize_with(Details::FieldState<memory_space>{Details::to_field_buffer(space_, density, velocity)});
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
    Kokkos::parallel_reduce("pk::lbm::check_health", policy(),
                            Details::FirstUnhealthyCell<ExecutionSpace, storage_type>{lattice_cells(), max_u * max_u},
                            Kokkos::Min<int>(first));
    return first == INT_MAX ? -1 : first;
  }

  // What is wrong with cell `first` (its moments read alone), named as health.hpp says.
  std::string unhealthy_message(int first, const std::array<int, 3>& origin = {0, 0, 0}) const {
    return Details::unhealthy_message(geometry_, steps_, first, origin,
                                      Details::read_cell(space_, lattice_cells(), first), parameters_);
  }

  // Density and velocity of every cell, as the last collision saw them, on the host.
  HostFields fields() const { return Details::read_fields(space_, lattice_cells(), geometry_, steps_); }
  // Their sum and largest |u|, reduced on the space.
  FlowSummary summary() const { return Details::summarize(policy(), lattice_cells()); }

  // Post-collision populations f*_q of the last step, index q * cells + cell, 0 in solid
  // cells: the same numbers whatever the streaming pattern.
  std::vector<double> distributions() const {
    const int cells = static_cast<int>(geometry_.cell_count());
    Kokkos::View<double**, Kokkos::LayoutLeft, memory_space> buffer(
        Kokkos::view_alloc(space_, Kokkos::WithoutInitializing, "pk::lbm::post_collision"), cells, D3Q19::size);
    Kokkos::parallel_for("pk::lbm::post_collision", policy(),
                         Details::PostCollisionCopy<ExecutionSpace, storage_type>{lattice_cells(), buffer});
    const auto host = readable_on_host(space_, buffer);
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
  bool shifted_storage() const { return plan_.shifted(); }
  // Whether whole-lattice streaming steps run in two passes, cells without walls and then
  // the groups with walls (Details::StepPlan::choose_split_by_walls).
  bool split_by_walls() const { return plan_.split_by_walls(); }
  // Whether A-B steps of the rows traversal store around the caches, as
  // Parameters::ab_stores asked or pk::autotune chose.
  bool streaming_stores() const { return plan_.streaming_stores(); }
  // Teams per multiprocessor of the A-A odd step in fp32 arithmetic on GPUs, as
  // Parameters::aa_odd_step_teams asked or pk::autotune chose for the lattice.
  int odd_step_teams() const { return plan_.odd_step_teams(); }
  // Bytes ahead the rows traversal (CPUs) prefetches its lines (0: none), as asked or autotuned.
  int rows_prefetch_bytes() const { return plan_.rows_prefetch_bytes(); }

 private:
  // A rank's solver in a distributed run: steps one at a time and exchanges ghost layers.
  template <class, class, Traversal>
  friend class DistributedSolver;

  static const Geometry& checked(const Geometry& geometry, const Parameters& parameters) {
    geometry.validate();
    validate(parameters, geometry);
    return geometry;
  }
  Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>> policy() const {
    return Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>(space_, 0,
                                                                       static_cast<int>(geometry_.cell_count()));
  }
  bool shifted() const { return plan_.shifted(); }
  Details::Layout layout() const {
    if (parameters_.streaming == Streaming::ab) return Details::Layout::home;
    return steps_ % 2 == 0 ? Details::Layout::streamed : Details::Layout::swapped;
  }
  // The lattice as the per-cell kernels read it.
  Details::LatticeCells<ExecutionSpace, storage_type> lattice_cells() const { return {f_, grid_, layout(), shifted()}; }

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
  template <Details::Kernel kernel>
  void launch(const char* label, const Distributions& source, const Distributions& target,
              const Details::CellBox* box) const {
    plan_.template launch<kernel>(label, grid_, source, target, box);
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

  ExecutionSpace space_;
  Geometry geometry_;
  Parameters parameters_;
  Details::StepPlan<ExecutionSpace, storage_type, traversal> plan_;
  Details::Grid<memory_space> grid_;
  Distributions f_, f_next_;
  std::int64_t steps_ = 0;
};

}  // namespace pk::lbm
