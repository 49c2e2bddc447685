#pragma once
// The LBM solver on several MPI ranks (built with PK_ENABLE_MPI): the lattice cut into
// slabs along its longest axis (slabs.hpp), one per rank, each stepped by a Solver on the
// rank's execution space, the populations crossing rank faces exchanged with every step
// (details/halo_exchange.hpp): the layers beside the ghost layers take the step first, then
// the rest of the slab takes it while the messages travel. Every rank takes the same
// arithmetic on the same numbers as one Solver on the whole lattice, so N ranks give the
// populations of one, bit for bit.
//
//   pk::mpi::Communicator world;
//   pk::lbm::DistributedSolver<Kokkos::OpenMP, double> solver(world, space, geometry, parameters);
//   solver.advance(1000);                         // every rank, in step
//   pk::lbm::HostFields mine = solver.fields();   // this rank's slab
//
// Every rank passes the whole geometry (one byte per cell on the host). Errors (a bad slab,
// an unhealthy cell on any rank) reach every rank as pk::mpi::AgreedError.
#include <pk/lbm/details/halo_exchange.hpp>
#include <pk/lbm/details/slab_fields.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace pk::lbm {

template <class ExecutionSpace, class Precision = float, Traversal traversal = default_traversal<ExecutionSpace>>
class DistributedSolver {
 public:
  using LocalSolver = Solver<ExecutionSpace, Precision, traversal>;

  // Collective. Cuts `global` into the ranks' slabs along `axis` (slabs.hpp; pk::mpi::AgreedError
  // when there are more ranks than layers, or a slab is all solid) and starts every cell at
  // equilibrium, as Solver does.
  DistributedSolver(const mpi::Communicator& comm, const ExecutionSpace& space, const Geometry& global,
                    const Parameters& parameters, SlabAxis axis = SlabAxis::automatic)
      : comm_(comm), global_(global) {
    mpi::collectively(comm_, [&] {
      slab_ = slab_of(global, comm.size(), comm.rank(), axis);
      solver_.emplace(space, local_geometry(global, slab_), parameters, slab_.ghosts());
    });
    halo_.emplace(comm_, space, slab_, solver_->grid_);
    int begin = slab_.first_owned(), end = begin + slab_.layers();
    if (slab_.low_neighbour >= 0) {
      beside_ghosts_.push_back(layers(begin, begin + 1));
      ++begin;
    }
    if (slab_.high_neighbour >= 0 && end > begin) {
      beside_ghosts_.push_back(layers(end - 1, end));
      --end;
    }
    interior_ = layers(begin, end);
    exchange();
  }

  // Collective. Restarts from step 0 at the equilibrium of a state of the whole lattice
  // (Details::Initialize), called with global cell indices and coordinates.
  template <class State>
  void initialize_with(const State& state) {
    solver_->initialize_with(Details::GlobalState<State>{state, slab_.axis, slab_.begin - slab_.first_owned(),
                                                         slab_.extent, global_.nx(), global_.ny()});
    exchange();
  }

  // Collective. Takes `steps` steps, checking the health of every rank's cells every
  // check_interval steps (AgreedError naming the cell in global coordinates).
  void advance(std::int64_t steps) {
    require(steps >= 0, "pk::lbm::DistributedSolver::advance: steps must be >= 0");
    const int interval = solver_->parameters().check_interval;
    for (std::int64_t s = 0; s < steps; ++s) {
      step();
      if (interval > 0 && solver_->step_count() % interval == 0) check_health();
    }
  }

  void check_health() const {
    mpi::collectively(comm_, [&] {
      const int first = solver_->first_unhealthy_cell();
      if (first >= 0) throw Error(solver_->unhealthy_message(first, origin()));
    });
  }

  // This rank's slab: density and velocity of its cells, nx/ny/nz the slab's size.
  HostFields fields() const {
    const HostFields local = solver_->fields();
    HostFields mine;
    const std::array<int, 3> size = slab_size();
    mine.nx = size[0], mine.ny = size[1], mine.nz = size[2];
    mine.step = local.step;
    for_each_owned_cell([&](std::size_t c) {
      mine.density.push_back(local.density[c]);
      for (int k = 0; k < 3; ++k) mine.velocity.push_back(local.velocity[3 * c + k]);
    });
    return mine;
  }

  // This rank's part of the summary (ghost cells aside): sum the masses, take the largest speed.
  FlowSummary summary() const { return solver_->summary(); }

  // Collective. This rank's slab plus the first layer of the next rank's (none on the last
  // rank): the point data of a VTK piece, which must share its boundary points with the
  // next piece.
  HostFields piece_fields() const { return Details::piece_fields(comm_, fields(), slab_, slab_size()); }

  // Post-collision populations of this rank's cells, as Solver::distributions() orders
  // them over the slab: q * cells + cell.
  std::vector<double> distributions() const {
    const std::vector<double> local = solver_->distributions();
    const std::size_t local_cells = local.size() / D3Q19::size;
    std::vector<double> mine;
    for (int q = 0; q < D3Q19::size; ++q)
      for_each_owned_cell([&](std::size_t c) { mine.push_back(local[q * local_cells + c]); });
    return mine;
  }

  const Slab& slab() const { return slab_; }
  // The slab's sizes in x, y, z.
  std::array<int, 3> slab_size() const {
    std::array<int, 3> size = {global_.nx(), global_.ny(), global_.nz()};
    size[slab_.axis] = slab_.layers();
    return size;
  }
  // Global coordinates of the slab's first cell (and of its VTK piece).
  std::array<int, 3> slab_origin() const {
    std::array<int, 3> at = {0, 0, 0};
    at[slab_.axis] = slab_.begin;
    return at;
  }
  const Geometry& geometry() const { return global_; }
  const LocalSolver& local_solver() const { return *solver_; }
  LocalSolver& local_solver() { return *solver_; }  // a restart's (checkpoint.hpp)
  std::int64_t step_count() const { return solver_->step_count(); }
  // Wall time this rank spent in the ghost-layer exchange since construction: packing,
  // posting, waiting for and unpacking the messages (not the interior step that overlaps them;
  // on a GPU the host waits for the messages while the interior kernel runs, so this time
  // bounds the exchange's cost from above).
  double exchange_seconds() const { return exchange_seconds_; }
  // Whether the exchange goes through host buffers (a device space and MPI not GPU-aware).
  bool staged() const { return halo_->staged(); }
  // Whether this rank's lattice is in shifted storage (Solver::shifted_storage).
  bool shifted_storage() const { return solver_->shifted_storage(); }

 private:
  void step() {
    for (const Details::CellBox& box : beside_ghosts_) solver_->step_cells(&box);
    Kokkos::Timer timer;
    halo_->start(solver_->lattice_after_step(), solver_->layout_after_step(), solver_->shifted());
    exchange_seconds_ += timer.seconds();
    if (interior_.cells() > 0) solver_->step_cells(&interior_);
    solver_->end_step();
    timer.reset();
    halo_->finish();
    exchange_seconds_ += timer.seconds();  // before the fence, which also waits for the interior
    solver_->space().fence();
  }

  // The exchange on its own, for the state a restart leaves.
  void exchange() {
    Kokkos::Timer timer;
    halo_->start(solver_->f_, solver_->layout(), solver_->shifted());
    halo_->finish();
    solver_->space().fence();
    exchange_seconds_ += timer.seconds();
  }

  // Owned layers [begin, end) along the split axis, as a box of the rank's lattice.
  Details::CellBox layers(int begin, int end) const {
    const Geometry& local = solver_->geometry();
    int lo[3] = {0, 0, 0}, hi[3] = {local.nx(), local.ny(), local.nz()};
    lo[slab_.axis] = begin;
    hi[slab_.axis] = end;
    return {lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]};
  }

  // Global coordinates of the rank lattice's cell 0 (negative for a wrapping ghost layer).
  std::array<int, 3> origin() const {
    std::array<int, 3> at = {0, 0, 0};
    at[slab_.axis] = slab_.begin - slab_.first_owned();
    return at;
  }

  // Calls f(local cell) for the slab's cells, x fastest.
  template <class F>
  void for_each_owned_cell(F&& f) const {
    const Geometry& local = solver_->geometry();
    std::array<int, 3> lo = {0, 0, 0}, hi = {local.nx(), local.ny(), local.nz()};
    lo[slab_.axis] = slab_.first_owned();
    hi[slab_.axis] = slab_.first_owned() + slab_.layers();
    for (int z = lo[2]; z < hi[2]; ++z)
      for (int y = lo[1]; y < hi[1]; ++y)
        for (int x = lo[0]; x < hi[0]; ++x) f(static_cast<std::size_t>(local.cell_index(x, y, z)));
  }

  mpi::Communicator comm_;
  Geometry global_;
  Slab slab_;
  std::optional<LocalSolver> solver_;
  std::optional<Details::HaloExchange<ExecutionSpace, typename LocalSolver::storage_type>> halo_;
  std::vector<Details::CellBox> beside_ghosts_;  // stepped first: the exchange needs them
  Details::CellBox interior_{};                  // stepped while the messages travel
  double exchange_seconds_ = 0;
};

}  // namespace pk::lbm
