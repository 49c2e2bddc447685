// GBEES on several ranks gives one rank's run: the same cells, their probabilities to
// round-off (the sums are taken in another order), the same steps and probability budget,
// through growth, pruning, rebalanced slabs and a Bayes update; thin slabs (3 layers a rank
// on 4 ranks) included.
#include "../spaces.hpp"

#include <pk/gbees/distributed_solver.hpp>
#include <pk/gbees/solver.hpp>
#include <pk/mpi/communicator.hpp>

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace {

using namespace pk::gbees;

template <class Space>
class GbeesDistributed : public ::testing::Test {};
TYPED_TEST_SUITE(GbeesDistributed, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

template <class Space, class Model>
void expect_same_run_as_one_rank(const Model& model, const Parameters& p, int axis = -1) {
  const pk::mpi::Communicator world;
  const Space space;
  Solver<Space, Model> one(space, model, p);
  DistributedSolver<Space, Model> many(world, space, model, p, axis);
  ASSERT_TRUE(one.run());
  ASSERT_TRUE(many.run());

  const Statistics a = one.statistics(), b = many.statistics();
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.max_cells, b.max_cells);
  EXPECT_EQ(a.cell_steps, b.cell_steps);
  EXPECT_NEAR(a.pruned_probability, b.pruned_probability, 1e-12);
  EXPECT_NEAR(a.clipped_probability, b.clipped_probability, 1e-12);
  EXPECT_NEAR(a.outflow_probability, b.outflow_probability, 1e-12);
  EXPECT_EQ(one.cell_count(), many.cell_count());
  EXPECT_DOUBLE_EQ(one.time(), many.time());

  // Each rank's own cells are cells of the one-rank grid with its probabilities; as many as
  // it over all ranks, so every cell is owned by exactly one rank.
  const HostCells whole = one.cells(), mine = many.cells();
  std::unordered_map<std::uint64_t, double> by_key;
  for (std::size_t c = 0; c < whole.size(); ++c) by_key[whole.key[c]] = whole.probability[c];
  double largest_difference = 0, found = 0;
  for (std::size_t c = 0; c < mine.size(); ++c) {
    const auto it = by_key.find(mine.key[c]);
    if (it == by_key.end()) continue;
    ++found;
    largest_difference = std::max(largest_difference, std::fabs(it->second - mine.probability[c]));
  }
  EXPECT_EQ(found, static_cast<double>(mine.size())) << "cells of this rank that one rank lacks";
  double counts[2] = {static_cast<double>(mine.size()), largest_difference};
  MPI_Allreduce(MPI_IN_PLACE, counts, 1, MPI_DOUBLE, MPI_SUM, world.get());
  MPI_Allreduce(MPI_IN_PLACE, counts + 1, 1, MPI_DOUBLE, MPI_MAX, world.get());
  EXPECT_EQ(counts[0], static_cast<double>(whole.size()));
  EXPECT_LT(counts[1], 1e-13);
  // With several ranks the grid is cut: no rank holds all of it.
  if (world.size() > 1) EXPECT_LT(mine.size(), whole.size());
}

Parameters short_lorenz63() {
  Parameters p = lorenz63_paper();
  p.end_time = 0.3;
  p.measurements.resize(1);
  p.measurements[0].time = 0.2;
  p.measurements[0].value[0] = -6;  // pulls the PDF: the slabs rebalance
  p.prune_interval = 8;
  return p;
}

TYPED_TEST(GbeesDistributed, Lorenz63WithAMeasurementIsOneRanksRun) {
  expect_same_run_as_one_rank<TypeParam>(Lorenz63{}, short_lorenz63());
}

TYPED_TEST(GbeesDistributed, AnEnsembleIsOneRanksRun) {
  Parameters p = short_lorenz63();
  p.end_time = 0.15;
  p.measurements.clear();
  p.member_means = {p.initial_mean, {-6, -8, 14}, {-14, -12, 6}};
  expect_same_run_as_one_rank<TypeParam>(Lorenz63{}, p);
}

TYPED_TEST(GbeesDistributed, Lorenz96InFourDimensionsCutAlongTheSecondAxis) {
  Parameters p = lorenz96_paper(4);
  p.cell_width.assign(4, 0.15);
  p.end_time = 0.3;
  p.measurements.clear();
  p.prune_interval = 10;
  expect_same_run_as_one_rank<TypeParam>(Lorenz96{4, 4.0}, p, 1);
}

}  // namespace
