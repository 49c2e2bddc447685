#pragma once
// The LBM solver on several MPI ranks (built with PK_ENABLE_MPI): the lattice cut into
// slabs along its longest axis (slabs.hpp), one per rank, each stepped by a Solver on the
// rank's execution space, the populations crossing rank faces exchanged after every step
// (details/halo_exchange.hpp). Every rank takes the same arithmetic on the same numbers as
// one Solver on the whole lattice, so N ranks give the populations of one, bit for bit.
//
//   pk::mpi::Communicator world;
//   pk::lbm::DistributedSolver<Kokkos::OpenMP, double> solver(world, space, geometry, parameters);
//   solver.advance(1000);                         // every rank, in step
//   pk::lbm::HostFields mine = solver.fields();   // this rank's slab
//
// Every rank passes the whole geometry (one byte per cell on the host). Errors (a bad slab,
// an unhealthy cell on any rank) reach every rank as pk::mpi::AgreedError.
//
// Not yet: overlapping the exchange with the interior cells' step; the step kernels cover
// a rank's whole lattice, and the exchange follows them.
#include <pk/lbm/details/halo_exchange.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/mpi/app.hpp>
#include <pk/mpi/communicator.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace pk::lbm {

namespace details {

// A state (see details::Initialize) of the whole lattice, called for a rank's cells with
// their global cell index and coordinates.
template <class State>
struct GlobalState {
  State state;
  int axis, offset, extent, nx, ny;  // global layer = local layer + offset, modulo extent

  KOKKOS_INLINE_FUNCTION void operator()(int, int x, int y, int z, double& density, double (&velocity)[3]) const {
    int at[3] = {x, y, z};
    at[axis] = (at[axis] + offset + extent) % extent;
    state(at[0] + nx * (at[1] + ny * at[2]), at[0], at[1], at[2], density, velocity);
  }
};

}  // namespace details

template <class ExecutionSpace, class Precision = float, Traversal traversal = default_traversal<ExecutionSpace>>
class DistributedSolver {
 public:
  using LocalSolver = Solver<ExecutionSpace, Precision, traversal>;

  // Collective. Cuts `global` into the ranks' slabs (pk::mpi::AgreedError when there are
  // more ranks than layers, or a slab is all solid) and starts every cell at equilibrium,
  // as Solver does.
  DistributedSolver(const mpi::Communicator& comm, const ExecutionSpace& space, const Geometry& global,
                    const Parameters& parameters)
      : comm_(comm), global_(global) {
    mpi::collectively(comm_, [&] {
      slab_ = slab_of(global, comm.size(), comm.rank());
      solver_.emplace(space, local_geometry(global, slab_), parameters, slab_.ghosts());
    });
    halo_.emplace(comm_, space, slab_, solver_->grid_);
    exchange();
  }

  // Collective. Restarts from step 0 at the equilibrium of a state of the whole lattice
  // (details::Initialize), called with global cell indices and coordinates.
  template <class State>
  void initialize_with(const State& state) {
    solver_->initialize_with(details::GlobalState<State>{state, slab_.axis, slab_.begin - slab_.first_owned(),
                                                         slab_.extent, global_.nx(), global_.ny()});
    exchange();
  }

  // Collective. Takes `steps` steps, checking the health of every rank's cells every
  // check_interval steps (AgreedError naming the cell in global coordinates).
  void advance(std::int64_t steps) {
    require(steps >= 0, "pk::lbm::DistributedSolver::advance: steps must be >= 0");
    const int interval = solver_->parameters().check_interval;
    for (std::int64_t s = 0; s < steps; ++s) {
      solver_->step();
      exchange();
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
  // Global coordinates of the slab's first cell.
  std::array<int, 3> slab_origin() const {
    std::array<int, 3> at = {0, 0, 0};
    at[slab_.axis] = slab_.begin;
    return at;
  }
  const Geometry& geometry() const { return global_; }
  const LocalSolver& local_solver() const { return *solver_; }
  std::int64_t step_count() const { return solver_->step_count(); }
  // Wall time spent in the ghost-layer exchange (packing, MPI, unpacking) since construction.
  double exchange_seconds() const { return exchange_seconds_; }
  // Whether the exchange goes through host buffers (a device space and MPI not GPU-aware).
  bool staged() const { return halo_->staged(); }

 private:
  void exchange() {
    Kokkos::Timer timer;
    halo_->exchange(solver_->f_, solver_->layout(), solver_->shifted());
    exchange_seconds_ += timer.seconds();
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
  std::optional<details::HaloExchange<ExecutionSpace, typename LocalSolver::storage_type>> halo_;
  double exchange_seconds_ = 0;
};

}  // namespace pk::lbm
