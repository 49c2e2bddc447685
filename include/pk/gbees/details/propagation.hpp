#pragma once
// The machinery of pk::gbees::Solver: the grid, the device state and the kernels of a step,
// queued in batches that end at the prunes (solver.hpp describes the algorithm).
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>
#include <pk/core/spaces.hpp>
#include <pk/gbees/details/advection.hpp>
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/distribution.hpp>
#include <pk/gbees/details/gaussian.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/details/growth.hpp>
#include <pk/gbees/details/host_snapshot.hpp>
#include <pk/gbees/details/initial_boxes.hpp>
#include <pk/gbees/details/normalisation.hpp>
#include <pk/gbees/details/pruning.hpp>
#include <pk/gbees/details/time_step.hpp>
#include <pk/gbees/grid.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/parameters.hpp>
#include <pk/gbees/statistics.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pk::gbees {
template <class Solver>
struct CheckpointState;
}  // namespace pk::gbees

namespace pk::gbees::Details {

template <class ExecutionSpace, class Model>
class Propagation {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Grid = SparseGrid<ExecutionSpace>;

  // The Gaussian initial PDF of `parameters`, normalised, at time 0. With `ranks` (more than
  // one), this rank's slab of it along `axis` (< 0: the axis the initial PDF spans the most
  // cells of), the others' ghosts included (Distribution).
  Propagation(const ExecutionSpace& space, const Model& model, const Parameters& parameters,
              std::shared_ptr<const Ranks> ranks = {}, int axis = -1)
      : space_(space),
        model_(model),
        parameters_(checked(parameters, model)),
        members_(member_count(parameters_)),
        grid_(space, model.dimension(), 1024, parameters.max_cells, member_key_bits(parameters_)),
        device_state_(space, members_) {
    geometry_.n = model.dimension();
    geometry_.codec = grid_.codec();
    for (int d = 0; d < geometry_.n; ++d) {
      geometry_.mean[d] = parameters_.initial_mean[d];
      geometry_.h[d] = parameters_.cell_width[d];
    }
    if (ranks && ranks->size() > 1) {
      require(axis < geometry_.n, "GBEES slabs: axis ", axis + 1, " of a ", geometry_.n, "-D model");
      distribution_ = std::make_unique<Distribution<ExecutionSpace>>(
          space, std::move(ranks), axis >= 0 ? axis : widest_initial_axis(parameters_, geometry_.n));
    }
    initialise();
  }

  const Parameters& parameters() const { return parameters_; }
  const Model& model() const { return model_; }
  int members() const { return members_; }
  double time() const { return time_; }
  double last_dt() const { return last_dt_; }
  const Grid& grid() const { return grid_; }
  const Geometry& geometry() const { return geometry_; }
  // Null on one rank.
  const Distribution<ExecutionSpace>* distribution() const { return distribution_.get(); }
  // Whether `flag` is true on any rank (collective when distributed): a decision all ranks
  // take together, such as stopping.
  bool on_any_rank(bool flag) const {
    if (!distribution_) return flag;
    double set = flag ? 1 : 0;
    distribution_->ranks().sum(&set, 1);
    return set > 0;
  }
  // The cells of the run: this rank's grid, or all ranks' owned cells as of the last batch.
  std::int64_t cell_count() const { return distribution_ ? owned_cells_ : grid_.count(); }
  Statistics statistics() const {
    Statistics s = statistics_;
    s.map_rehashes = grid_.map_rehashes();
    return s;
  }
  // The sums of the last update, or of the last normalisation, of PDF `member` (waits for
  // the device).
  UpdateSums last_update(int member) {
    check_device_state();
    return last_update_.at(member);
  }

  // Bayes update (eq. 4) with the Gaussian likelihood of `m`, normalisation and a prune.
  void measure(const Measurement& m) {
    Kokkos::parallel_for("pk::gbees::measure", over_cells(),
                         MeasurementUpdate<Grid>{geometry_, m, grid_.key(), grid_.probability()});
    normalise();
    prune();
    normalise();
  }

  // The cells on the host (this rank's own when distributed): keys, indices, probabilities,
  // the PDF each belongs to.
  HostCells cells() const { return host_cells(space_, grid_, geometry_, time_, distribution_ != nullptr); }

  Kokkos::RangePolicy<ExecutionSpace> over_cells() const {
    return Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count());
  }

  // The Gaussian initial PDFs, each on its box of +-round(extent std_j / h_j) cells around
  // the cell nearest its mean (or only the box's cells at or above p*), normalised, and the
  // neighbour table (by strides where every cell of the boxes was kept).
  // Distributed, the first slab borders share the boxes' cells out and each rank makes the
  // part it holds.
  void initialise() {
    const InitialBoxes boxes = initial_boxes(parameters_, geometry_.n, members_);
    if (distribution_)
      distribution_->set_borders(initial_borders(boxes, distribution_->axis(), distribution_->ranks().size()),
                                 geometry_);
    std::vector<BoxPart> part;
    for (int e = 0; e < members_; ++e) part.push_back(box_part(boxes, parameters_, geometry_, e));
    // The cells each box keeps (a first scan), slots for them, then the cells (a second).
    Kokkos::View<int, memory_space> failures(Kokkos::view_alloc(space_, "pk::gbees::initialise::failures"));
    std::vector<std::int64_t> first_slot(members_ + 1, 0);
    const auto scan = [&](int e, bool write) {
      std::int64_t kept = 0;
      Kokkos::parallel_scan(
          "pk::gbees::initialise",
          Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space_, 0, part[e].cells),
          InitialGaussian<Grid>{geometry_, part[e].low, part[e].width, boxes.inverse_std, e, boxes.offset[e],
                                boxes.shift[e], boxes.cut[e], write, first_slot[e], grid_.map(), grid_.key(),
                                grid_.probability(), failures},
          kept);
      return kept;
    };
    for (int e = 0; e < members_; ++e) first_slot[e + 1] = first_slot[e] + scan(e, false);
    const std::int64_t total = first_slot[members_];
    require(total > 0 || distribution_, "initial grid: no cell of the initial box reaches p* = ", parameters_.threshold,
            ": lower the threshold or widen the cells");
    require(total < (std::int64_t(1) << 31), "initial boxes of " + std::to_string(total) + " cells: too many");
    grid_.reserve(static_cast<std::size_t>(total));
    for (int e = 0; e < members_; ++e) scan(e, true);
    const int failed = read_scalar(space_, failures);
    require(failed == 0, "initial grid: " + std::to_string(failed) +
                             " cells could not be inserted (ensemble members closer than their boxes?)");
    grid_.set_count(static_cast<std::int32_t>(total));
    bool whole_boxes = true;
    for (int e = 0; e < members_; ++e) whole_boxes = whole_boxes && first_slot[e + 1] - first_slot[e] == part[e].cells;
    if (!whole_boxes) {
      grid_.rebuild_neighbours();
    } else {
      for (int e = 0; e < members_; ++e)
        Kokkos::parallel_for(
            "pk::gbees::initialise::neighbours",
            Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space_, 0, part[e].cells),
            InitialNeighbours<Grid>{geometry_.codec, part[e].width, first_slot[e], grid_.map(), grid_.key(),
                                    grid_.neighbour()});
    }
    normalise();
    count_cells();
    statistics_.max_cells = cell_count();
    statistics_.peak_bytes = grid_.allocated_bytes();
  }

  // The cells all ranks own now, into owned_cells_ (collective).
  void count_cells() {
    if (!distribution_) return;
    double owned = static_cast<double>(distribution_->count_owned(grid_, geometry_));
    distribution_->ranks().sum(&owned, 1);
    owned_cells_ = static_cast<std::int64_t>(owned);
  }

  // Steps until the next prune, or as many as the last step's length says are left
  // before t (a step past t does nothing, one short costs another batch).
  int steps_in_batch(double t) const {
    const int to_prune = parameters_.prune_interval - static_cast<int>(statistics_.steps % parameters_.prune_interval);
    if (!(last_dt_ > 0)) return to_prune;
    const double left = std::ceil((t - time_) / last_dt_);
    return left < to_prune ? std::max(1, static_cast<int>(left)) : to_prune;
  }

  // Queues `steps` steps towards target without waiting for the device, then waits, resumes
  // a step whose growth ran out of room, and prunes when one is due.
  void run_steps(int steps, double target, double tolerance) {
    Kokkos::parallel_for("pk::gbees::step::aim", light_weight(1),
                         AimClock<memory_space>{device_state_.clock, target, tolerance});
    for (int s = 0; s < steps; ++s) queue_step(true);
    for (int attempt = 0; grid_.recover_failed_insert(attempt); ++attempt) queue_step(false);
    const StepClock clock = device_state_.read_clock(space_);
    time_ = clock.time;
    last_dt_ = clock.dt;
    statistics_.steps = clock.steps;
    statistics_.cell_steps = distribution_ ? owned_cell_steps_ : clock.cell_steps;
    statistics_.max_cells = std::max(statistics_.max_cells, distribution_ ? max_owned_cells_ : clock.max_cells);
    statistics_.peak_bytes = std::max(statistics_.peak_bytes, grid_.allocated_bytes());
    if (statistics_.steps % parameters_.prune_interval == 0 && statistics_.steps != pruned_at_step_) {
      pruned_at_step_ = statistics_.steps;
      prune();
      normalise();
    }
    grid_.reserve(static_cast<std::size_t>(grid_.count()));  // headroom for the next growth
  }

  // Indices 0..extent-1, launched with the functor as a kernel argument. Kokkos would copy
  // a functor over 512 bytes (those holding the hash map) to constant memory, and such a
  // launch first waits for the previous one to finish: twice a step, the queue of a batch
  // would drain. 64-bit indices: growth's slots x axes pass 2^31 from about 360 M cells in
  // 6-D, which a 32-bit index would truncate.
  auto light_weight(std::int64_t extent) const {
    return Kokkos::Experimental::require(
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space_, 0, extent),
        Kokkos::Experimental::WorkItemProperty::HintLightWeight);
  }

  // Launches one step's kernels over the slots of SparseGrid::launch_extent (LiveCells
  // picks the cells): BeginStep (not when resuming a step), directional growth, the
  // neighbour table with the donor-cell fluxes and the CFL limit, dt, the corner-transport
  // terms, the update and its normalisation.
  void queue_step(bool begin) {
    const LiveCells<memory_space> live{grid_.device_count(), device_state_.phase, grid_.insert_failed()};
    const auto slots = [&] { return light_weight(grid_.launch_extent()); };
    const auto one = light_weight(1);
    const auto key = grid_.key();
    const auto probability = grid_.probability();
    const auto neighbour = grid_.neighbour();
    const auto flux = grid_.flux();
    const auto& clock = device_state_.clock;
    if (begin)
      Kokkos::parallel_for(
          "pk::gbees::step::begin", one,
          BeginStep<memory_space>{clock, device_state_.phase, grid_.device_count(), grid_.insert_failed()});
    // Ranks wait for each other within a step; one whose step is idle (the target reached)
    // knows that the others' is too: their clocks are the same.
    if (distribution_ && read_scalar(space_, device_state_.phase) != step_running) return;
    const auto grow = [&] {
      const int extent = grid_.launch_extent();
      Kokkos::parallel_for("pk::gbees::grow", light_weight(static_cast<std::int64_t>(extent) * geometry_.n),
                           GrowCells<typename Grid::Inserter, Grid>{geometry_.codec, geometry_.slab, grid_.inserter(),
                                                                    key, grid_.direction(), neighbour,
                                                                    device_state_.out_of_range, clock, live, extent});
    };
    grow();
    // Distributed, a step that ran out of room resumes here, not after its collectives.
    for (int attempt = 0; distribution_ && grid_.recover_failed_insert(attempt); ++attempt) grow();
    Kokkos::parallel_reduce("pk::gbees::neighbours_fluxes_cfl", slots(),
                            NeighboursFluxesAndCfl<Model, Grid>{model_, geometry_, grid_.map(), key, probability,
                                                                neighbour, flux, clock, live},
                            Kokkos::Min<double, memory_space>(device_state_.cfl_limit));
    if (distribution_) reduce_over_ranks(device_state_.cfl_limit, false);
    // At least one slot: slot 0 chooses the step also where a rank holds no cells.
    Kokkos::parallel_for(
        "pk::gbees::link_new_cells", light_weight(std::max(grid_.launch_extent(), 1)),
        LinkNewCells<Grid>{neighbour, clock, live, geometry_.n,
                           ChooseStep<memory_space>{clock, device_state_.cfl_limit, live, parameters_.epsilon}});
    Kokkos::parallel_for(
        "pk::gbees::advect::corner_transport", slots(),
        CornerTransport<Model, Grid>{model_, geometry_, key, probability, neighbour, flux, clock, live});
    const FiniteVolumeUpdate<Model, Grid> update{model_,
                                                 geometry_,
                                                 key,
                                                 probability,
                                                 neighbour,
                                                 flux,
                                                 clock,
                                                 live,
                                                 parameters_.back_face_outflow,
                                                 device_state_.step_sums,
                                                 3u * members_};
    if (sums_by_reduction()) {
      Kokkos::parallel_reduce("pk::gbees::advect::update", slots(), update, rows(device_state_.step_sums));
    } else {
      Kokkos::deep_copy(space_, device_state_.step_sums, 0.0);
      Kokkos::parallel_for("pk::gbees::advect::update", slots(), update);
    }
    if (distribution_) {
      const double owned = reduce_over_ranks(device_state_.step_sums, true,
                                             static_cast<double>(distribution_->count_owned(grid_, geometry_)));
      owned_cells_ = static_cast<std::int64_t>(owned);
      owned_cell_steps_ += owned;
      max_owned_cells_ = std::max(max_owned_cells_, owned_cells_);
    }
    Kokkos::parallel_for("pk::gbees::normalise::scale", slots(), scale_by_total(device_state_.step_sums, live));
    if (distribution_) {
      distribution_->exchange_ghosts(grid_, geometry_);
      const auto arrived = distribution_->arrived();
      Kokkos::parallel_for("pk::gbees::distribution::ghost_masks",
                           Kokkos::RangePolicy<ExecutionSpace>(space_, 0, arrived.extent(0)),
                           DirectionMasks<Model, Grid>{model_, geometry_, parameters_.threshold, grid_.key(),
                                                       grid_.probability(), grid_.direction(), arrived});
    }
  }

  // Replaces a device view's values with their minimum (sum: their sum) over the ranks;
  // `extra` travels with a sum and comes back summed.
  template <class View>
  double reduce_over_ranks(const View& values, bool sum, double extra = 0) {
    std::vector<double> host(values.size() + 1);
    using HostView = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const HostView on_host(host.data(), values.size());
    const Kokkos::View<double*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> flat(values.data(),
                                                                                            values.size());
    Kokkos::deep_copy(space_, on_host, flat);
    space_.fence();
    host.back() = extra;
    const int count = static_cast<int>(sum ? host.size() : values.size());
    if (sum)
      distribution_->ranks().sum(host.data(), count);
    else
      distribution_->ranks().min(host.data(), count);
    Kokkos::deep_copy(space_, flat, on_host);
    space_.fence();
    return host.back();
  }

  // Sums per PDF by a reduction of 3 values per PDF (one PDF, or host threads: each thread
  // adds into its own), or with atomics (an ensemble on a GPU).
  bool sums_by_reduction() const { return members_ == 1 || pk::runs_on_host<ExecutionSpace>; }
  // The rows of MemberSums as the one array a reduction writes.
  static Kokkos::View<double*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> rows(
      const MemberSums<memory_space>& sums) {
    return Kokkos::View<double*, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(sums.data(),
                                                                                        3 * sums.extent(0));
  }

  // Scales each PDF's cell probabilities to sum 1 and checks the sums on the host.
  void normalise() {
    const auto& sums = device_state_.update_sums;
    const SumProbability<Grid> sum{geometry_.codec,     geometry_.slab, grid_.key(),
                                   grid_.probability(), sums,           3u * members_};
    if (sums_by_reduction()) {
      Kokkos::parallel_reduce("pk::gbees::normalise::sum", over_cells(), sum, rows(sums));
    } else {
      Kokkos::deep_copy(space_, sums, 0.0);  // no update: nothing clipped or lost
      Kokkos::parallel_for("pk::gbees::normalise::sum", over_cells(), sum);
    }
    if (distribution_) reduce_over_ranks(sums, true);
    Kokkos::parallel_for("pk::gbees::normalise::scale", light_weight(grid_.launch_extent()),
                         scale_by_total(device_state_.update_sums,
                                        {grid_.device_count(), device_state_.phase, grid_.insert_failed(), false}));
    check_device_state();
  }

  // The kernel that divides the cells `live` picks by their PDF's total in sums and writes
  // their direction masks.
  ScaleByTotal<Model, Grid> scale_by_total(const MemberSums<memory_space>& sums,
                                           const LiveCells<memory_space>& live) const {
    return {model_,
            geometry_,
            parameters_.threshold,
            grid_.key(),
            grid_.probability(),
            grid_.direction(),
            sums,
            device_state_.update_sums,
            device_state_.run_sums,
            live};
  }

  // Algorithm 3: mark, compaction (the neighbour table moves with the cells), rehash.
  // Returns the probability removed (the caller renormalises).
  double prune() {
    Kokkos::parallel_for("pk::gbees::prune::mark", over_cells(),
                         PruneMark<Grid>{geometry_.n, grid_.direction(), grid_.neighbour(), grid_.keep()});
    double removed = 0;
    if (distribution_) {
      removed = distribution_->prune(grid_, geometry_);
      count_cells();
    } else {
      removed = grid_.compact();
    }
    statistics_.pruned_probability += removed;
    return removed;
  }

  // Reads the device state (waits for the device) into statistics_ and last_update_, and
  // throws on a bad one.
  void check_device_state() {
    auto state = device_state_.read(space_);
    if (distribution_) {  // every rank stops when one does
      double out_of_range = state.out_of_range;
      distribution_->ranks().sum(&out_of_range, 1);
      state.out_of_range = out_of_range > 0;
    }
    statistics_.clipped_probability = state.run_sums[0];
    statistics_.outflow_probability = state.run_sums[1];
    require(state.out_of_range == 0, "grid growth left the range of the packed cell index (+-" +
                                         std::to_string(geometry_.codec.limit()) + " cells per axis in " +
                                         std::to_string(geometry_.n) + "-D): use a larger cell width");
    last_update_.resize(members_);
    for (int e = 0; e < members_; ++e) {
      last_update_[e] = UpdateSums{state.update_sums(e, 0), state.update_sums(e, 1), state.update_sums(e, 2)};
      require(last_update_[e].total > 0 && std::isfinite(last_update_[e].total),
              "GBEES: total probability is " + std::to_string(last_update_[e].total) + " at t = " +
                  std::to_string(time_) + (members_ > 1 ? " in ensemble member " + std::to_string(e + 1) : "") +
                  " (a measurement far from every cell, or a blown-up step)");
    }
  }

  static const Parameters& checked(const Parameters& p, const Model& model) {
    validate(p, model.dimension());
    return p;
  }

 private:
  template <class>
  friend struct pk::gbees::CheckpointState;  // reads and restores the whole state

  ExecutionSpace space_;
  Model model_;
  Parameters parameters_;
  Geometry geometry_;
  int members_;  // PDFs in the grid
  Grid grid_;
  DeviceState<memory_space> device_state_;
  double time_ = 0;     // the device clock's, as of the last batch
  double last_dt_ = 0;  // of the last step
  std::int64_t pruned_at_step_ = 0;
  Statistics statistics_;
  std::unique_ptr<Distribution<ExecutionSpace>> distribution_;  // several ranks
  std::int64_t owned_cells_ = 0, max_owned_cells_ = 0;          // over the ranks (distributed)
  double owned_cell_steps_ = 0;
  std::vector<UpdateSums> last_update_;  // per PDF
};

}  // namespace pk::gbees::Details
