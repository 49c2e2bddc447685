#pragma once
// GBEES: grid-based Bayesian estimation exploiting sparsity (Hanson, Rubio, Garcia-Gutierrez,
// Bewley, "GBEES-GPU"). The PDF of dx/dt = f(x) lives on a sparse grid of cells around the
// probability mass; each step
//   grow      - add the downwind neighbours of cells with probability >= p*
//               (details/growth.hpp),
//   CFL       - dt = epsilon / max_cells sum_j |f_j| / h_j (eq. 8; details/time_step.hpp),
//   advect    - donor-cell fluxes, corner-transport-upwind terms and the high-resolution
//               correction, finite-volume update (details/advection.hpp),
//   normalise - scale to total 1 (details/normalisation.hpp),
// and every prune_interval steps pruning (Algorithm 3: details/pruning.hpp, then
// SparseGrid::compact). At a measurement time the PDF is multiplied by the Gaussian
// likelihood (eq. 4; details/gaussian.hpp). docs/gbees.md describes the design.
//
//   pk::gbees::Solver<Kokkos::OpenMP, pk::gbees::Lorenz63> solver(space, {}, pk::gbees::lorenz63_paper());
//   solver.advance_to(1.0);
//   solver.measure(parameters.measurements[0]);
//   pk::gbees::HostCells cells = solver.cells();
//
// Boundary of the sparse grid: as in GBEES, a face with no cell beyond it is open - the
// missing cell holds probability 0, so only outflow crosses it. Growth keeps a cell beyond
// every downwind face of the cells above p*, so only cells below p* lose probability there
// (statistics().outflow_probability); pruning (pruned_probability) and clipping negative
// undershoots to zero (clipped_probability) are the other changes to the total, which
// normalisation then restores to 1.
//
// The kernels leave their totals, error flags and the clock on the device
// (Details::DeviceState) and, on a GPU, run over the whole cell capacity and read the cell
// count there, so that a batch of steps (up to the next prune) is queued without waiting:
// the host reads the clock after each batch and checks the rest when advance_to returns
// and after a prune or a measurement. Parameters::member_means propagates an ensemble of
// PDFs in one grid (docs/gbees.md, "Ensembles").
#include <pk/core/checks.hpp>
#include <pk/gbees/details/propagation.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/models.hpp>
#include <pk/gbees/parameters.hpp>
#include <pk/gbees/statistics.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>

namespace pk::gbees {

template <class ExecutionSpace, class Model>
class Solver {
  static_assert(check_arguments<ExecutionSpace>());
  static_assert(check_model<Model>(), "pk::gbees::Solver<ExecutionSpace, Model>: see check_model in models.hpp");

 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using Grid = SparseGrid<ExecutionSpace>;
  using Observer = std::function<bool(const StepInfo&)>;  // return false to stop
  using UpdateSums = gbees::UpdateSums;

  // The Gaussian initial PDF of `parameters`, normalised, at time 0.
  Solver(const ExecutionSpace& space, const Model& model, const Parameters& parameters)
      : state_(space, model, parameters) {}
  // The same over several ranks, each holding a slab of the grid along `axis` (details/
  // distribution.hpp; < 0: chosen from the initial PDF). DistributedSolver supplies MPI's.
  Solver(const ExecutionSpace& space, const Model& model, const Parameters& parameters,
         std::shared_ptr<const Details::Ranks> ranks, int axis)
      : state_(space, model, parameters, std::move(ranks), axis) {}

  const Parameters& parameters() const { return state_.parameters(); }
  const Model& model() const { return state_.model(); }
  int members() const { return state_.members(); }  // PDFs propagated together (Parameters::member_means)
  double time() const { return state_.time(); }
  // Cells in the grid (distributed: owned by all ranks).
  std::int64_t cell_count() const { return state_.cell_count(); }
  Statistics statistics() const { return state_.statistics(); }
  const Details::Geometry& geometry() const { return state_.geometry(); }

  // Runs to parameters().end_time, applying the measurements at their times.
  bool run(const Observer& observer = {}) {
    for (const Measurement& m : parameters().measurements) {
      if (m.time < time()) continue;
      if (!advance_to(m.time, observer)) return false;
      measure(m);
    }
    return advance_to(parameters().end_time, observer);
  }

  // Steps until time() reaches t (the last step is shortened to land on it), in batches
  // that end at the prunes. The observer, if any, sees the state after every batch and
  // can stop the run by returning false (then this returns false).
  bool advance_to(double t, const Observer& observer = {}) {
    const double tolerance = 1e-12 * std::max(1.0, std::fabs(t));
    while (t - time() > tolerance) {
      state_.run_steps(state_.steps_in_batch(t), t, tolerance);
      const Statistics s = state_.statistics();
      const bool stop = observer && !observer(StepInfo{time(), state_.last_dt(), s.steps, cell_count(), s.cell_steps});
      if (state_.on_any_rank(stop)) {
        state_.check_device_state();
        return false;
      }
    }
    state_.check_device_state();
    return true;
  }

  // One step no longer than max_dt: grow, CFL step, advect, normalise; every
  // prune_interval steps a prune. Returns the step taken (max_dt = 0: the grid grows, no
  // probability moves).
  double step(double max_dt = std::numeric_limits<double>::infinity()) {
    state_.run_steps(1, time() + max_dt, -1.0);
    return state_.last_dt();
  }

  // Bayes update (eq. 4) with the Gaussian likelihood of `m`, normalisation and a prune.
  void measure(const Measurement& m) { state_.measure(m); }

  // The cells on the host (distributed: those this rank owns): keys, centres,
  // probabilities, the PDF each belongs to.
  HostCells cells() const { return state_.cells(); }

  // The sums of the last update, or of the last normalisation, of PDF `member` (waits for
  // the device).
  UpdateSums last_update(int member = 0) { return state_.last_update(member); }

 private:
  // Checkpoints (checkpoint.hpp) read and restore the whole state.
  template <class>
  friend struct CheckpointState;

  Details::Propagation<ExecutionSpace, Model> state_;
};

}  // namespace pk::gbees
