// Every solver runs all its work on the execution space instance it is given (a partition
// of the space, not its default instance) and labels it, as Kokkos Tools sees it. On a GPU
// each partition is a stream of its own; Kokkos gives every OpenMP instance the same id, so
// there the check catches work on other backends and global fences.
#include "instance_recorder.hpp"
#include "rfilter_cases.hpp"
#include "spaces.hpp"

#include <pk/gbees/solver.hpp>
#include <pk/lbm/solver.hpp>
#include <pk/rfilter/chunked_filter.hpp>
#include <pk/rfilter/synthetic.hpp>
#include <pk/rfilter/three_dvar.hpp>

namespace {

template <class Space>
class KokkosToolsInstances : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosToolsInstances, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(KokkosToolsInstances, LbmSolver) {
  const TypeParam space = pk::test::partitioned_instance<TypeParam>();
  pk::test::InstanceRecorder recorder;
  for (const auto streaming : {pk::lbm::Streaming::aa, pk::lbm::Streaming::ab}) {
    pk::lbm::Parameters p;
    p.streaming = streaming;
    p.check_interval = 3;
    p.inlet_density = 1.01;
    pk::lbm::Solver<TypeParam, float> solver(space, pk::lbm::box_channel(24, 12, 12), p);
    solver.advance(6);
    EXPECT_EQ(solver.fields().step, 6);
    EXPECT_FALSE(solver.distributions().empty());
  }
  recorder.expect_all_on(space);
}

TYPED_TEST(KokkosToolsInstances, GbeesSolver) {
  const TypeParam space = pk::test::partitioned_instance<TypeParam>();
  pk::test::InstanceRecorder recorder;
  pk::gbees::Parameters p = pk::gbees::lorenz63_paper();
  p.prune_interval = 4;
  pk::gbees::Solver<TypeParam, pk::gbees::Lorenz63> solver(space, pk::gbees::Lorenz63{}, p);
  solver.advance_to(0.02);
  pk::gbees::Measurement m;
  m.time = 0.02;
  m.count = 1;
  m.value[0] = p.initial_mean[0];
  m.std[0] = 1;
  solver.measure(m);
  EXPECT_GT(solver.cells().size(), 0u);
  recorder.expect_all_on(space);
}

TYPED_TEST(KokkosToolsInstances, RecursiveFilterAnd3dVar) {
  namespace rf = pk::rfilter;
  const TypeParam space = pk::test::partitioned_instance<TypeParam>();
  pk::test::InstanceRecorder recorder;
  const rf::SyntheticSettings s = pk::test::small_3dvar_case(16);
  const auto problem = rf::make_synthetic_case(space, s);
  const rf::ThreeDVar<TypeParam> var(space, s.grid, s.covariance, rf::to_space(space, problem.observations, s.grid));
  typename rf::ThreeDVar<TypeParam>::Vector analysis(Kokkos::view_alloc(space, "pk::test::analysis"), s.grid.size());
  const auto result = var.analyse(problem.background, analysis, 1e-6, 50);
  EXPECT_GT(result.cg.iterations, 0);
  EXPECT_LT(rf::rms_difference(space, analysis, problem.truth),
            rf::rms_difference(space, problem.background, problem.truth));
  recorder.expect_all_on(space);
}

}  // namespace
