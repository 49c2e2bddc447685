#pragma once
// GBEES on several MPI ranks (built with PK_ENABLE_MPI): the sparse grid in slabs along one
// axis, a slab a rank and a GPU a rank, so that a grid larger than one GPU holds can run.
// Each rank owns the cells whose layer on the axis lies in its slab and keeps copies of its
// neighbours' cells two layers deep; every step takes one global dt, normalises by global
// totals and refreshes the copies; pruning moves the slab borders so that the ranks own
// about as many cells (details/distribution.hpp). N ranks give one rank's cells, and its
// probabilities to round-off (the order of the sums). docs/gbees.md, "Several ranks".
//
//   pk::mpi::Communicator world;
//   pk::gbees::DistributedSolver<Kokkos::Cuda, pk::gbees::Lorenz96> solver(world, space, model, parameters);
//   solver.run();
//   pk::gbees::HostCells mine = solver.cells();  // the cells this rank owns
//
// Every call is collective. --max-cells limits each rank's cells.
#include <pk/gbees/details/distributed_ranks.hpp>
#include <pk/gbees/solver.hpp>
#include <pk/mpi/communicator.hpp>

#include <memory>

namespace pk::gbees {

template <class ExecutionSpace, class Model>
class DistributedSolver : public Solver<ExecutionSpace, Model> {
 public:
  // axis: the axis the slabs cut (0-based); < 0: the one the initial PDF spans most cells of.
  DistributedSolver(const mpi::Communicator& comm, const ExecutionSpace& space, const Model& model,
                    const Parameters& parameters, int axis = -1)
      : DistributedSolver(std::make_shared<Details::MpiRanks>(comm), space, model, parameters, axis) {}

  // Where this rank's time between kernels went: reductions, cell exchanges, inserting the
  // cells that arrived (waits for the other ranks included).
  Details::CommunicationSeconds communication_seconds() const { return ranks_->seconds; }

 private:
  DistributedSolver(const std::shared_ptr<Details::MpiRanks>& ranks, const ExecutionSpace& space, const Model& model,
                    const Parameters& parameters, int axis)
      : Solver<ExecutionSpace, Model>(space, model, parameters, ranks, axis), ranks_(ranks) {}

  std::shared_ptr<Details::MpiRanks> ranks_;
};

}  // namespace pk::gbees
