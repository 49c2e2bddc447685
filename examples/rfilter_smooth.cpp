// Recursive-filter tutorial: smooth a 3-D field with the K-iterated Gaussian recursive
// filter, then solve a small 3D-Var analysis whose background covariance is that filter.
//
//   build/openmp/examples/pk-example-rfilter-smooth
//
// What it checks (exit status 1 if a check fails): filtering a point source along every
// axis gives a blob of mass 1 and variance sigma^2 per axis (the filter's defining
// property, eq. (8) of the paper); the 3D-Var analysis is closer to the truth than the
// background it started from.
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/synthetic.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>

namespace rf = pk::rfilter;

namespace {

template <class Space>
bool smooth_point_source(const Space& space) {
  const int n = 64, centre = n / 2;
  const double sigma = 2;  // grid cells, as in the paper; the source lies 16 sigma from every edge
  // Smoothing coefficients alpha, beta for a Gaussian of std sigma from K = 4 passes of a
  // first-order filter forth and back along a line.
  const rf::Coefficients c = rf::make_coefficients(sigma, 4);
  const rf::Coefficients per_axis[3] = {c, c, c};

  // A field in the space's memory (any rank 1 to 3, LayoutLeft or LayoutRight), 1 at the centre.
  Kokkos::View<double***, Kokkos::LayoutLeft, typename Space::memory_space> field("example::field", n, n, n);
  Kokkos::deep_copy(space, Kokkos::subview(field, centre, centre, centre), 1.0);

  // In place, along x, then y, then z: one call per axis (apply_filter(space, field, axis, c)),
  // here all three at once. rf::Transpose::yes would apply the adjoint instead.
  rf::apply_filter_all_axes(space, field, per_axis);

  // Mass and variance along each axis, on the host.
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
  double mass = 0, variance[3] = {0, 0, 0};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const double v = host(i, j, k);
        mass += v;
        variance[0] += v * (i - centre) * (i - centre);
        variance[1] += v * (j - centre) * (j - centre);
        variance[2] += v * (k - centre) * (k - centre);
      }
  std::printf(
      "point source smoothed in a %d^3 field: mass %.15f, variance along x, y, z %.12f %.12f %.12f "
      "(sigma^2 = %g)\n",
      n, mass, variance[0], variance[1], variance[2], sigma * sigma);
  bool ok = std::abs(mass - 1) < 1e-11;
  for (double v : variance) ok = ok && std::abs(v - sigma * sigma) < 1e-10 * sigma * sigma;
  return ok;
}

template <class Space>
bool small_analysis(const Space& space) {
  // A synthetic experiment: a smooth truth on a 32 x 24 x 6 grid, a background whose
  // error has covariance B = V V^T (V: the filter above, std 0.5), 600 observations of
  // the truth at random points with noise of std 0.1.
  rf::SyntheticSettings s;
  s.grid = {32, 24, 6};
  for (auto& c : s.covariance.per_axis) c = rf::make_coefficients(2.5, 4);
  s.covariance.background_std = 0.5;
  s.observations = 600;
  s.observation_std = 0.1;
  const auto problem = rf::make_synthetic_case(space, s);

  // Your own observations go in the same ObservationSet (x, y, z in grid coordinates,
  // value, error std), or come from a file through rf::read_observations(path).
  const rf::ThreeDVar<Space> var(space, s.grid, s.covariance, rf::to_space(space, problem.observations, s.grid));
  typename rf::ThreeDVar<Space>::Vector analysis("example::analysis", s.grid.size());
  // Conjugate gradients on (I + V^T H^T R^-1 H V) v = V^T H^T R^-1 (y - H x_b); analysis = x_b + V v.
  const rf::AnalysisResult result = var.analyse(problem.background, analysis, 1e-7, 400);

  const double before = rf::rms_difference(space, problem.background, problem.truth);
  const double after = rf::rms_difference(space, analysis, problem.truth);
  std::printf(
      "3D-Var on %d x %d x %d with %ld observations: CG %s in %d iterations; rms error against the truth "
      "%.4f (background) -> %.4f (analysis)\n",
      s.grid.nx, s.grid.ny, s.grid.nz, s.observations, result.cg.converged ? "converged" : "did not converge",
      result.cg.iterations, before, after);
  return result.cg.converged && after < 0.5 * before;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Space = Kokkos::DefaultExecutionSpace;  // the GPU in a CUDA build, else OpenMP
  std::printf("Recursive filter and 3D-Var on %s\n", Space::name());
  const bool smoothed = smooth_point_source(Space{});
  const bool analysed = small_analysis(Space{});
  if (!smoothed) std::printf("FAILED: the smoothed point source has the wrong mass or variance\n");
  if (!analysed) std::printf("FAILED: the analysis did not halve the background error\n");
  if (smoothed && analysed) std::printf("all checks passed\n");
  return smoothed && analysed ? 0 : 1;
}
