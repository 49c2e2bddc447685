// 3D-Var on several ranks: V is the overlapped chunk decomposition along x (one chunk per
// rank), V^T its transpose, and the analysis matches one rank's within the chunking error.
#include "../rfilter_cases.hpp"
#include "../spaces.hpp"

#include <pk/mpi/communicator.hpp>
#include <pk/rfilter/chunked_filter.hpp>
#include <pk/rfilter/distributed_three_dvar.hpp>
#include <pk/rfilter/synthetic.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <algorithm>
#include <cmath>

namespace {

namespace rf = pk::rfilter;

template <class Space>
class RfilterDistributed : public ::testing::Test {};
TYPED_TEST_SUITE(RfilterDistributed, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

rf::SyntheticSettings small_case() { return pk::test::small_3dvar_case(40); }

// The entries of a whole-grid vector that lie in this rank's slab, on the host.
template <class Vector>
std::vector<double> slab_of(const Vector& whole, const rf::Grid& g, const rf::XSlab& slab) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, whole);
  std::vector<double> part;
  for (int z = 0; z < g.nz; ++z)
    for (int y = 0; y < g.ny; ++y)
      for (int x = slab.begin; x < slab.end; ++x) part.push_back(host(x + g.nx * (y + static_cast<long>(g.ny) * z)));
  return part;
}

template <class Space>
typename rf::DistributedThreeDVar<Space>::Vector to_space(const std::vector<double>& values) {
  typename rf::DistributedThreeDVar<Space>::Vector v("pk::test::slab", values.size());
  auto host = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
  Kokkos::deep_copy(v, host);
  return v;
}

template <class Vector>
std::vector<double> on_host(const Vector& v) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
  return std::vector<double>(host.data(), host.data() + host.size());
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// V on N ranks = the chunked filter along x (N chunks, overlap m), then y and z, scaled.
TYPED_TEST(RfilterDistributed, VIsTheChunkedFilter) {
  const pk::mpi::Communicator world;
  const auto s = small_case();
  const int m = rf::default_overlap(2.5);
  const auto problem = rf::make_synthetic_case(TypeParam{}, s);
  rf::DistributedThreeDVar<TypeParam> var(world, TypeParam{}, s.grid, s.covariance, m, problem.observations);
  auto mine = to_space<TypeParam>(slab_of(problem.truth, s.grid, var.slab()));
  var.apply_v(mine);

  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename TypeParam::memory_space>;
  const Field source("pk::test::source", s.grid.nx, s.grid.ny, s.grid.nz),
      chunked("pk::test::chunked", s.grid.nx, s.grid.ny, s.grid.nz);
  Kokkos::deep_copy(
      source,
      Kokkos::View<const double***, Kokkos::LayoutLeft, typename TypeParam::memory_space, Kokkos::MemoryUnmanaged>(
          problem.truth.data(), s.grid.nx, s.grid.ny, s.grid.nz));
  rf::apply_filter_chunked(TypeParam{}, source, chunked, 0, s.covariance.per_axis[0],
                           {world.size(), world.size() > 1 ? m : 0});
  for (int axis : {1, 2}) rf::apply_filter(TypeParam{}, chunked, axis, s.covariance.per_axis[axis]);
  typename rf::DistributedThreeDVar<TypeParam>::Vector flat(chunked.data(), chunked.size());
  std::vector<double> expected = slab_of(flat, s.grid, var.slab()), got = on_host(mine);
  const double sigma = 2.5, pi = 3.14159265358979323846;
  const double scale = s.covariance.background_std * std::pow(std::sqrt(2.0 * std::sqrt(pi) * sigma), 3);
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - scale * expected[i]));
  EXPECT_LT(worst, 1e-12 * scale * max_abs(expected)) << "rank " << world.rank();
}

// <V x, y> = <x, V^T y> over the whole grid.
TYPED_TEST(RfilterDistributed, TransposeIsExact) {
  const pk::mpi::Communicator world;
  const auto s = small_case();
  const auto problem = rf::make_synthetic_case(TypeParam{}, s);
  rf::DistributedThreeDVar<TypeParam> var(world, TypeParam{}, s.grid, s.covariance, rf::default_overlap(2.5),
                                          problem.observations);
  auto x = to_space<TypeParam>(slab_of(problem.truth, s.grid, var.slab()));
  auto y = to_space<TypeParam>(slab_of(problem.background, s.grid, var.slab()));
  auto vx = to_space<TypeParam>(on_host(x)), vty = to_space<TypeParam>(on_host(y));
  var.apply_v(vx);
  var.apply_vt(vty);
  const rf::Details::MpiReduction sum{world.get()};
  const double left = sum.dot(TypeParam{}, vx, y), right = sum.dot(TypeParam{}, x, vty);
  EXPECT_NEAR(left, right, 1e-12 * std::abs(left));
}

// The chunking error pk-3dvar reports, relative: the largest difference between the chunked
// and the unsplit filter along x of the truth, over the largest entry of the unsplit one.
template <class Space>
double relative_chunking_error(const rf::SyntheticSettings& s, const typename rf::SyntheticCase<Space>::Vector& truth,
                               int chunks) {
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename Space::memory_space>;
  const Field unsplit("pk::test::unsplit", s.grid.nx, s.grid.ny, s.grid.nz),
      chunked("pk::test::chunked", s.grid.nx, s.grid.ny, s.grid.nz);
  Kokkos::deep_copy(
      unsplit, Kokkos::View<const double***, Kokkos::LayoutLeft, typename Space::memory_space, Kokkos::MemoryUnmanaged>(
                   truth.data(), s.grid.nx, s.grid.ny, s.grid.nz));
  rf::apply_filter_chunked(Space{}, unsplit, chunked, 0, s.covariance.per_axis[0], {chunks, rf::default_overlap(2.5)});
  rf::apply_filter(Space{}, unsplit, 0, s.covariance.per_axis[0]);
  const auto u = on_host(unsplit), c = on_host(chunked);
  double worst = 0;
  for (std::size_t i = 0; i < u.size(); ++i) worst = std::max(worst, std::abs(u[i] - c[i]));
  return worst / max_abs(u);
}

// N ranks against one rank's ThreeDVar: the same analysis on one rank (to CG's tolerance);
// on more, by no more than the filter's chunking error (relative to the largest increment:
// 2.5e-3 on 2 ranks and 2.7e-3 on 4, where the chunked filter differs by 4.3e-3).
TYPED_TEST(RfilterDistributed, AnalysisMatchesOneRank) {
  const pk::mpi::Communicator world;
  const auto s = small_case();
  const auto problem = rf::make_synthetic_case(TypeParam{}, s);
  const rf::ThreeDVar<TypeParam> one(TypeParam{}, s.grid, s.covariance,
                                     rf::to_space(TypeParam{}, problem.observations, s.grid));
  typename rf::ThreeDVar<TypeParam>::Vector whole("pk::test::analysis", s.grid.size());
  const double tolerance = 1e-10;
  const auto one_result = one.analyse(problem.background, whole, tolerance, 400);

  rf::DistributedThreeDVar<TypeParam> var(world, TypeParam{}, s.grid, s.covariance, rf::default_overlap(2.5),
                                          problem.observations);
  const std::vector<double> background = slab_of(problem.background, s.grid, var.slab());
  auto mine = to_space<TypeParam>(background);
  typename rf::DistributedThreeDVar<TypeParam>::Vector analysis("pk::test::analysis", mine.size());
  const auto result = var.analyse(mine, analysis, tolerance, 400);
  EXPECT_TRUE(result.cg.converged);
  EXPECT_NEAR(result.misfit_norm, one_result.misfit_norm, 1e-12 * one_result.misfit_norm);  // H across ranks
  const std::vector<double> expected = slab_of(whole, s.grid, var.slab()), got = on_host(analysis);
  double worst = 0, increment = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - expected[i]));
    increment = std::max(increment, std::abs(expected[i] - background[i]));
  }
  double all[2] = {worst, increment}, largest[2];
  MPI_Allreduce(all, largest, 2, MPI_DOUBLE, MPI_MAX, world.get());
  if (world.rank() == 0)
    std::printf(
        "3D-Var on %d ranks: CG %d iterations; max |analysis - one rank's| %.3e, %.2e of the largest increment %.3e\n",
        world.size(), result.cg.iterations, largest[0], largest[0] / largest[1], largest[1]);
  const double chunking = world.size() > 1 ? relative_chunking_error<TypeParam>(s, problem.truth, world.size()) : 0;
  if (world.rank() == 0) std::printf("  (chunked filter along x: %.2e of the unsplit one's largest entry)\n", chunking);
  EXPECT_LT(largest[0], (world.size() == 1 ? 1e-7 : chunking) * largest[1]);
}

}  // namespace
