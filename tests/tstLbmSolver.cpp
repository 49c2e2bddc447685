// The solver's invariants: mass conservation, A-A and A-B taking identical steps, the
// health check stopping a bad run, and agreement between execution spaces.
#include "spaces.hpp"

#include <pk/app/space_selection.hpp>
#include <pk/lbm/solver.hpp>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace {

using namespace pk::lbm;

template <class Space>
class LbmSolver : public ::testing::Test {};
TYPED_TEST_SUITE(LbmSolver, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

// A random smooth-ish initial state: density 1 +- 1e-2, velocity components +- 0.03.
void random_state(const Geometry& g, std::vector<double>& density, std::vector<double>& velocity, unsigned seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> d(-0.01, 0.01), u(-0.03, 0.03);
  density.resize(g.cell_count());
  velocity.resize(3 * g.cell_count());
  for (auto& r : density) r = 1 + d(engine);
  for (auto& v : velocity) v = u(engine);
}

double total_mass(const HostFields& f) { return std::accumulate(f.density.begin(), f.density.end(), 0.0); }

// A geometry that exercises every boundary rule: a channel along x with pressure inlet and
// outlet, walls in y, periodic in z, and a solid block inside. Rows of 40 fill host SIMD
// runs; 300 make three chunks for the GPU's staged even step.
Geometry mixed_geometry(int nx = 40) {
  Geometry g(nx, 9, 5, {false, false, true});
  for (int z = 0; z < g.nz(); ++z)
    for (int y = 0; y < g.ny(); ++y)
      for (int x = 0; x < g.nx(); ++x) {
        CellType t = x == 0 ? CellType::inlet : x == g.nx() - 1 ? CellType::outlet : CellType::fluid;
        if (y == 0 || y == g.ny() - 1 || (x >= 4 && x <= 6 && y >= 3 && y <= 5 && z >= 1 && z <= 2))
          t = CellType::solid;
        g.set(x, y, z, t);
      }
  return g;
}

template <class Space, class Real>
void check_mass_conservation(const Geometry& geometry, double tolerance) {
  Parameters p;
  p.tau = 0.7;
  p.check_interval = 10;
  Solver<Space, Real> solver(Space{}, geometry, p);
  std::vector<double> density, velocity;
  random_state(geometry, density, velocity, 7);
  for (int c = 0; c < geometry.cell_count(); ++c)
    if (geometry.cells()[c] == CellType::solid) density[c] = 1;
  solver.initialize(density, velocity);
  const double before = total_mass(solver.fields());
  solver.advance(41);
  const double after = total_mass(solver.fields());
  EXPECT_NEAR(after, before, tolerance * before) << "fluid cells: " << geometry.active_cell_count();
}

TYPED_TEST(LbmSolver, PeriodicBgkConservesMass) {
  check_mass_conservation<TypeParam, double>(periodic_box(10, 7, 6), 1e-13);
  check_mass_conservation<TypeParam, float>(periodic_box(10, 7, 6), 2e-6);
}

TYPED_TEST(LbmSolver, ClosedBoxWithBounceBackConservesMass) {
  Geometry box(9, 8, 7);  // non-periodic faces are bounce-back walls
  box.set(4, 4, 3, CellType::solid);
  check_mass_conservation<TypeParam, double>(box, 1e-13);
}

// Restarts two solvers from the same state, advances both `steps` steps and returns the
// largest difference between their post-collision populations.
template <class A, class B>
double largest_difference_after(int steps, A& a, B& b, const std::vector<double>& density,
                                const std::vector<double>& velocity) {
  a.initialize(density, velocity);
  b.initialize(density, velocity);
  a.advance(steps);
  b.advance(steps);
  const auto fa = a.distributions(), fb = b.distributions();
  double worst = 0;
  for (std::size_t i = 0; i < fa.size(); ++i) worst = std::max(worst, std::abs(fa[i] - fb[i]));
  return worst;
}

// A-A and A-B must take the same steps: compare post-collision populations after an odd
// and an even number of steps (A-A's two storage layouts), fp64 and fp32.
template <class Space, class Real>
void check_aa_matches_ab(double tolerance) {
  const Geometry g = mixed_geometry();
  Parameters p;
  p.tau = 0.8;
  p.inlet_density = 1.01;
  p.outlet_density = 0.99;
  std::vector<double> density, velocity;
  random_state(g, density, velocity, 11);
  p.streaming = Streaming::aa;
  Solver<Space, Real> aa(Space{}, g, p);
  p.streaming = Streaming::ab;
  Solver<Space, Real> ab(Space{}, g, p);
  for (int steps : {7, 8}) {
    const double worst = largest_difference_after(steps, aa, ab, density, velocity);
    std::printf("[ aa vs ab ] %s after %d steps: max |f_AA - f_AB| = %.3e\n", precision_name<Real>, steps, worst);
    EXPECT_LE(worst, tolerance) << steps << " steps";
    EXPECT_LE(max_velocity_difference(aa.fields(), ab.fields()), tolerance) << steps << " steps";
    EXPECT_GT(max_speed(aa.fields()), 1e-3);  // the flow is not trivially at rest
  }
}

// Half-precision storage: the rows traversal's runs of cells take BGK by opposite pairs, single
// cells (the cells traversal's, and the rows traversal's boundary cells, which A-A and A-B pick
// differently) direction by direction, so a cell's float sums may round apart between two runs
// and flip the last bit of a stored half; at the largest shifted populations here (below 2^-7)
// that bit is 2^-18, about 3.8e-6.
constexpr double half_last_bit = 4e-6;

TYPED_TEST(LbmSolver, AAAndABGiveTheSameFields) {
  check_aa_matches_ab<TypeParam, double>(1e-14);
  check_aa_matches_ab<TypeParam, float>(1e-6);
  check_aa_matches_ab<TypeParam, pk::Binary16>(half_last_bit);
}

// Expects advance/check to throw pk::Error whose message holds every part.
template <class F>
void expect_stop(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "the run was not stopped";
  } catch (const pk::Error& e) {
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

template <class Space, class Real>
void check_health_checks() {
  const Geometry g = periodic_box(8, 6, 5);
  Parameters p;
  p.check_interval = 5;
  std::vector<double> density(g.cell_count(), 1.0), velocity(3 * g.cell_count(), 0.0);
  const auto planted = g.cell_index(3, 4, 2);

  Solver<Space, Real> solver(Space{}, g, p);
  density[planted] = std::numeric_limits<double>::quiet_NaN();
  solver.initialize(density, velocity);
  expect_stop([&] { solver.check_health(); }, {"at step 0, cell (3, 4, 2)", "NaN"});
  solver.initialize(density, velocity);
  // the NaN spreads, the check every 5 steps stops the run at step 5
  expect_stop([&] { solver.advance(100); }, {"at step 5, cell", "NaN", "health checked every 5 steps"});
  EXPECT_EQ(solver.step_count(), 5);

  density[planted] = -0.5;
  solver.initialize(density, velocity);
  // the planted density, to the storage's rounding ("-0.5" or "-0.49...")
  try {
    solver.check_health();
    ADD_FAILURE() << "the check did not stop the run";
  } catch (const pk::Error& e) {
    const std::string message = e.what(), part = "at step 0, cell (3, 4, 2): density ";
    const auto at = message.find(part);
    ASSERT_NE(at, std::string::npos) << message;
    EXPECT_NEAR(std::stod(message.substr(at + part.size())), -0.5, 0.01) << message;
    EXPECT_NE(message.find("is not positive"), std::string::npos) << message;
  }

  density[planted] = 1;
  velocity[3 * planted + 1] = 0.4;  // Mach 0.69
  solver.initialize(density, velocity);
  expect_stop([&] { solver.check_health(); }, {"cell (3, 4, 2)", "Mach number 0.69", "exceeds the limit 0.3"});

  velocity[3 * planted + 1] = 0.1;
  solver.initialize(density, velocity);
  EXPECT_NO_THROW(solver.advance(20));
}

TYPED_TEST(LbmSolver, HealthCheckStopsTheRunAtTheStepAndCell) {
  check_health_checks<TypeParam, float>();
  check_health_checks<TypeParam, pk::Binary16>();  // conversions keep NaN
}

// The summary reduced on the space is what the host fields give: the mass to round-off (the
// sums run in another order), the largest speed exactly, and NaN once a cell's velocity is.
template <class Space, class Real>
void check_summary() {
  const Geometry g = mixed_geometry();
  std::vector<double> density, velocity;
  random_state(g, density, velocity, 11);
  Parameters p;
  p.check_interval = 0;
  Solver<Space, Real> solver(Space{}, g, p);
  solver.initialize(density, velocity);
  solver.advance(3);
  const HostFields fields = solver.fields();
  const FlowSummary summary = solver.summary();
  EXPECT_NEAR(summary.mass, total_mass(fields), 1e-12 * total_mass(fields));
  EXPECT_EQ(summary.max_speed, max_speed(fields));
  EXPECT_GT(summary.max_speed, 0.0);
  velocity[3 * g.cell_index(3, 4, 2)] = std::numeric_limits<double>::quiet_NaN();
  solver.initialize(density, velocity);
  EXPECT_TRUE(std::isnan(solver.summary().max_speed));
}

TYPED_TEST(LbmSolver, SummaryOnTheSpaceMatchesTheHostFields) {
  check_summary<TypeParam, double>();
  check_summary<TypeParam, pk::Binary16>();
}

TYPED_TEST(LbmSolver, PressureDropDrivesFlowFromInletToOutlet) {
  Parameters p;
  p.inlet_density = 1.005;
  p.outlet_density = 0.995;
  Solver<TypeParam, double> solver(TypeParam{}, box_channel(20, 6, 6), p);
  solver.advance(400);
  const HostFields f = solver.fields();
  const auto& g = solver.geometry();
  EXPECT_NEAR(f.density[g.cell_index(0, 3, 3)], 1.005, 1e-12);  // prescribed exactly
  EXPECT_NEAR(f.density[g.cell_index(19, 3, 3)], 0.995, 1e-12);
  for (int x = 0; x < 20; ++x) {
    const auto c = g.cell_index(x, 3, 3);
    EXPECT_GT(f.velocity[3 * c], 1e-4) << x;                                    // forward everywhere
    EXPECT_LT(std::abs(f.velocity[3 * c + 1]), 1e-2 * f.velocity[3 * c]) << x;  // acoustic transients only
  }
  EXPECT_EQ(f.velocity[3 * g.cell_index(5, 0, 3)], 0);  // solid cells read as 0
}

// The mixed geometry with an inlet-to-outlet pressure drop and a random initial state: the
// case on which two ways of stepping the same lattice are compared.
struct MixedCase {
  Geometry g = mixed_geometry(300);
  Parameters p;
  std::vector<double> density, velocity;
  MixedCase() {
    p.inlet_density = 1.01;
    p.outlet_density = 0.99;
    random_state(g, density, velocity, 5);
  }
};

// The rows traversal (CPU kernels) and the cells traversal (GPU kernels: shifted A-A
// storage, staged even step) take the same steps on every space, A-A after an odd and an
// even number of steps, and A-B.
template <class Space, class Real>
void expect_traversals_agree(const Geometry& g, Parameters p, const std::vector<double>& density,
                             const std::vector<double>& velocity, double tolerance) {
  // A-B in the rows traversal once with each kind of store (AbStores)
  struct Variant {
    Streaming streaming;
    AbStores stores;
    const char* name;
  };
  for (const Variant v : {Variant{Streaming::aa, AbStores::tuned, "aa"}, Variant{Streaming::ab, AbStores::cached, "ab"},
                          Variant{Streaming::ab, AbStores::streaming, "ab streaming"}}) {
    p.streaming = v.streaming;
    p.ab_stores = v.stores;
    Solver<Space, Real, Traversal::rows> rows(Space{}, g, p);
    Solver<Space, Real, Traversal::cells> cells(Space{}, g, p);
    EXPECT_EQ(rows.streaming_stores(), v.stores == AbStores::streaming);
    for (int steps : {7, 8}) {
      const double worst = largest_difference_after(steps, rows, cells, density, velocity);
      std::printf("[ traversals ] %d cells per row, %s %s after %d steps: max |f_rows - f_cells| = %.3e\n", g.nx(),
                  v.name, precision_name<Real>, steps, worst);
      EXPECT_LE(worst, tolerance) << g.nx() << " cells per row, " << v.name << ", " << steps << " steps";
    }
    EXPECT_GT(max_speed(cells.fields()), 1e-3);
  }
}

template <class Space, class Real>
void check_traversals_agree(double tolerance) {
  const MixedCase mixed;
  expect_traversals_agree<Space, Real>(mixed.g, mixed.p, mixed.density, mixed.velocity, tolerance);
}

TYPED_TEST(LbmSolver, RowsAndCellsTraversalsTakeTheSameSteps) {
  check_traversals_agree<TypeParam, double>(1e-14);
  check_traversals_agree<TypeParam, float>(1e-6);
  check_traversals_agree<TypeParam, pk::Binary16>(half_last_bit);
  check_traversals_agree<TypeParam, pk::Compact16>(1e-6);
}

// The rows traversal's software prefetch is a hint: each distance pk::autotune may choose
// takes the same steps, bit for bit, as none, A-A and A-B; a distance not among them is refused.
template <class Space, class Real>
void check_prefetch_changes_nothing() {
  const MixedCase mixed;
  for (const Streaming streaming : {Streaming::aa, Streaming::ab}) {
    Parameters p = mixed.p;
    p.streaming = streaming;
    p.rows_prefetch_bytes = 0;
    Solver<Space, Real, Traversal::rows> none(Space{}, mixed.g, p);
    for (const int bytes : {512, 1024}) {
      p.rows_prefetch_bytes = bytes;
      Solver<Space, Real, Traversal::rows> ahead(Space{}, mixed.g, p);
      EXPECT_EQ(ahead.rows_prefetch_bytes(), bytes);
      for (int steps : {7, 8})
        EXPECT_EQ(largest_difference_after(steps, none, ahead, mixed.density, mixed.velocity), 0.0)
            << streaming_name(streaming) << ", " << bytes << " bytes ahead, " << steps << " steps";
    }
  }
  Parameters p = mixed.p;
  p.rows_prefetch_bytes = 100;
  EXPECT_THROW((Solver<Space, Real, Traversal::rows>(Space{}, mixed.g, p)), pk::Error);
}

TYPED_TEST(LbmSolver, RowsPrefetchChangesNoResult) {
  check_prefetch_changes_nothing<TypeParam, double>();
  check_prefetch_changes_nothing<TypeParam, pk::Binary16>();
}

// The same on fully periodic boxes, where the rows traversal's runs take the cells on
// periodic faces: y and z wraps are shared by the row, x wraps are a run's end cells
// reaching across the row. Rows of 37 cells end in partial runs, rows of 32 in full runs
// (a multiple of every run's length), and rows of 7 are shorter than the SIMD lanes, so a
// run may wrap at both ends. Odd cell counts: the cells traversal's paired fp16 even step
// leaves the last cell without a partner.
template <class Space, class Real>
void check_traversals_agree_periodic(double tolerance) {
  for (const Geometry& g : {periodic_box(37, 5, 3), periodic_box(32, 5, 3), periodic_box(7, 5, 3)}) {
    std::vector<double> density, velocity;
    random_state(g, density, velocity, 11);
    expect_traversals_agree<Space, Real>(g, Parameters{}, density, velocity, tolerance);
  }
}

TYPED_TEST(LbmSolver, RowsAndCellsTraversalsTakeTheSameStepsOnAPeriodicBox) {
  check_traversals_agree_periodic<TypeParam, double>(1e-14);
  check_traversals_agree_periodic<TypeParam, float>(1e-6);
  check_traversals_agree_periodic<TypeParam, pk::Binary16>(half_last_bit);
}

// An fp16 lattice of long x rows, most of whose warps of cells have no walls, steps in two
// passes in the cells traversal (cells without walls, then the groups with walls) on every
// space; the rows traversal, in one, takes the same steps. Periodic in x (whose face cells
// stay on the open path) and z (whose face rows take the walled pass), walls in y, a solid
// block inside; 2^19 cells, the fewest that split. Tolerance: the traversals round in different orders (vectorised
// rows, fused multiply-adds), which can tip a stored half to its neighbour, 3e-5 apart
// near 0.05; a cell stepped wrongly or twice differs by 1e-3 or more.
TYPED_TEST(LbmSolver, StepsSplitByWallsMatchTheRowsTraversal) {
  Geometry g(512, 32, 32, {true, false, true});
  for (int z = 0; z < g.nz(); ++z)
    for (int y = 0; y < g.ny(); ++y)
      for (int x = 0; x < g.nx(); ++x) {
        const bool block = x >= 100 && x < 110 && y >= 8 && y < 14 && z >= 5 && z < 9;
        g.set(x, y, z, y == 0 || y == g.ny() - 1 || block ? CellType::solid : CellType::fluid);
      }
  std::vector<double> density, velocity;
  random_state(g, density, velocity, 13);
  Parameters p;
  for (Streaming streaming : {Streaming::aa, Streaming::ab}) {
    p.streaming = streaming;
    Solver<TypeParam, pk::Binary16, Traversal::rows> rows(TypeParam{}, g, p);
    Solver<TypeParam, pk::Binary16, Traversal::cells> cells(TypeParam{}, g, p);
    EXPECT_FALSE(rows.split_by_walls());
    EXPECT_TRUE(cells.split_by_walls());
    for (int steps : {7, 8}) {
      const double worst = largest_difference_after(steps, rows, cells, density, velocity);
      std::printf("[ split by walls ] %s after %d steps: max |f_rows - f_cells| = %.3e\n", streaming_name(streaming),
                  steps, worst);
      EXPECT_LE(worst, 1e-4) << streaming_name(streaming) << ", " << steps << " steps";
    }
    EXPECT_GT(max_speed(cells.fields()), 1e-3);
  }
}

// The cells traversal holds an A-A lattice computing in fp32 in plain or shifted storage,
// as pk::autotune picks per device: both take the same steps, after an odd and an even
// number of steps, and the solver says which it holds.
template <class Space, class Real>
void check_storages_agree(double tolerance) {
  MixedCase mixed;
  const Geometry& g = mixed.g;
  Parameters& p = mixed.p;
  const std::vector<double>&density = mixed.density, &velocity = mixed.velocity;
  p.aa_storage = AaStorage::plain;
  Solver<Space, Real, Traversal::cells> plain(Space{}, g, p);
  p.aa_storage = AaStorage::shifted;
  Solver<Space, Real, Traversal::cells> shifted(Space{}, g, p);
  EXPECT_FALSE(plain.shifted_storage());
  EXPECT_TRUE(shifted.shifted_storage());
  for (int steps : {7, 8}) {
    const double worst = largest_difference_after(steps, plain, shifted, density, velocity);
    std::printf("[ storages ] %s after %d steps: max |f_plain - f_shifted| = %.3e\n", precision_name<Real>, steps,
                worst);
    EXPECT_LE(worst, tolerance) << steps << " steps";
  }
  EXPECT_GT(max_speed(shifted.fields()), 1e-3);
}

TYPED_TEST(LbmSolver, PlainAndShiftedStorageTakeTheSameSteps) {
  check_storages_agree<TypeParam, float>(1e-6);
  check_storages_agree<TypeParam, pk::Binary16>(1e-6);
}

// The A-A odd step in fp32 arithmetic runs under the teams per multiprocessor (a register cap
// on GPUs) that pk::autotune picks for the lattice or Parameters::aa_odd_step_teams forces:
// every candidate takes the same steps bit for bit, and what is not a candidate is refused.
template <int... teams>
std::vector<int> as_vector(std::integer_sequence<int, teams...>) {
  return {teams...};
}
template <class Space, class Real>
void check_odd_step_teams_agree() {
  MixedCase mixed;
  const auto candidates = as_vector(typename Details::Launch<Space>::odd_step_teams{});
  mixed.p.aa_odd_step_teams = candidates.front();
  Solver<Space, Real, Traversal::cells> first(Space{}, mixed.g, mixed.p);
  for (const int teams : candidates) {
    mixed.p.aa_odd_step_teams = teams;
    Solver<Space, Real, Traversal::cells> other(Space{}, mixed.g, mixed.p);
    // Launch bounds mean nothing on host spaces, which keep the first.
    EXPECT_EQ(other.odd_step_teams(), pk::runs_on_host<Space> ? candidates.front() : teams);
    for (int steps : {7, 8})
      EXPECT_EQ(largest_difference_after(steps, first, other, mixed.density, mixed.velocity), 0.0)
          << precision_name<Real> << ", " << teams << " teams, " << steps << " steps";
  }
  mixed.p.aa_odd_step_teams = candidates.back() + 1;
  EXPECT_THROW((Solver<Space, Real, Traversal::cells>(Space{}, mixed.g, mixed.p)), pk::Error);
}

TYPED_TEST(LbmSolver, EveryOddStepTeamsTakesTheSameSteps) {
  check_odd_step_teams_agree<TypeParam, float>();
  check_odd_step_teams_agree<TypeParam, pk::Binary16>();
}

// Which storage a solver holds: only A-A in the cells traversal computing in fp32 may be
// shifted; fp16 storage is plain unless asked; for fp32 host spaces take the default
// untimed (shifted), device spaces what pk::autotune chose, which it reports; A-B and the
// rows traversal are plain.
TYPED_TEST(LbmSolver, StorageChoiceIsReported) {
  const Geometry g = box_channel(12, 4, 4);
  Parameters p;
  Solver<TypeParam, float, Traversal::cells> fp32(TypeParam{}, g, p);
  Solver<TypeParam, pk::Binary16, Traversal::cells> fp16(TypeParam{}, g, p);
  if (pk::runs_on_host<TypeParam>) EXPECT_TRUE(fp32.shifted_storage());
  EXPECT_FALSE(fp16.shifted_storage());
  EXPECT_FALSE((Solver<TypeParam, double, Traversal::cells>(TypeParam{}, g, p).shifted_storage()));
  EXPECT_FALSE((Solver<TypeParam, float, Traversal::rows>(TypeParam{}, g, p).shifted_storage()));
  p.streaming = Streaming::ab;
  EXPECT_FALSE((Solver<TypeParam, float, Traversal::cells>(TypeParam{}, g, p).shifted_storage()));
  p.streaming = Streaming::aa;
  p.aa_storage = AaStorage::shifted;
  EXPECT_THROW((Solver<TypeParam, double, Traversal::cells>(TypeParam{}, g, p)), pk::Error);
  EXPECT_THROW((Solver<TypeParam, float, Traversal::rows>(TypeParam{}, g, p)), pk::Error);
}

// OpenMP is the reference; every other enabled space must agree with it. Stated
// tolerance: after 200 steps of the mixed geometry, max |u - u_openmp| <= 1e-12 (fp64),
// 1e-6 (fp32) and 1e-4 (fp16 storage), velocities being ~1e-2: the spaces differ only in
// the order of rounding (e.g. fused multiply-adds), which the dissipative BGK dynamics do
// not amplify; in fp16 such a difference can tip a stored value to the next half (a
// relative 1e-3).
TEST(LbmAcrossSpaces, EverySpaceAgreesWithOpenMP) {
  if (pk::test::one_space_build) GTEST_SKIP() << pk::test::nothing_to_compare;
  const Geometry g = mixed_geometry();
  Parameters p;
  p.inlet_density = 1.01;
  p.outlet_density = 0.99;
  std::vector<HostFields> fp64, fp32, fp16;
  std::vector<std::string> names;
  pk::for_each_selected_space(pk::select_spaces("all"), [&](const auto& space) {
    using Space = std::decay_t<decltype(space)>;
    names.push_back(pk::SpaceTraits<Space>::name);
    Solver<Space, double> s64(space, g, p);
    s64.advance(200);
    fp64.push_back(s64.fields());
    Solver<Space, float> s32(space, g, p);
    s32.advance(200);
    fp32.push_back(s32.fields());
    Solver<Space, pk::Binary16> s16(space, g, p);
    s16.advance(200);
    fp16.push_back(s16.fields());
  });
  ASSERT_FALSE(names.empty());
  ASSERT_EQ(names.front(), "openmp");
  EXPECT_GT(max_speed(fp64.front()), 1e-3);
  for (std::size_t i = 1; i < names.size(); ++i) {
    const double d64 = max_velocity_difference(fp64[i], fp64.front()),
                 d32 = max_velocity_difference(fp32[i], fp32.front()),
                 d16 = max_velocity_difference(fp16[i], fp16.front());
    std::printf("[ spaces ] %s vs openmp: max |du| fp64 %.3e, fp32 %.3e, fp16 %.3e\n", names[i].c_str(), d64, d32, d16);
    EXPECT_LE(d64, 1e-12) << names[i];
    EXPECT_LE(d32, 1e-6) << names[i];
    EXPECT_LE(d16, 1e-4) << names[i];
  }
}

}  // namespace
