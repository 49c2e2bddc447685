#pragma once
// The GBEES tests' check of a space against the host space on one short run: the same steps
// and cells, probabilities within 1e-10 in the 1-norm (atomics add in another order on a
// GPU; growth decisions are identical), for one PDF or an ensemble.
#include <pk/gbees/solver.hpp>

#include <gtest/gtest.h>

namespace pk::test {

template <class Space, class Model>
void expect_same_run_as_host(const Model& model, const pk::gbees::Parameters& p) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  pk::gbees::Solver<Space, Model> solver(Space{}, model, p);
  pk::gbees::Solver<Host, Model> host(Host{}, model, p);
  ASSERT_TRUE(solver.run());
  ASSERT_TRUE(host.run());
  EXPECT_EQ(solver.statistics().steps, host.statistics().steps);
  const pk::gbees::HostCells a = solver.cells(), b = host.cells();
  EXPECT_EQ(a.size(), b.size());
  const pk::gbees::GridComparison c = pk::gbees::compare(a, b);
  EXPECT_LT(c.one_norm, 1e-10);
  EXPECT_NEAR(c.bhattacharyya, solver.members(), 1e-10);  // 1 per PDF of an ensemble
}

}  // namespace pk::test
