// Pressure-driven Poiseuille flow through a square duct against the analytic profile:
// accuracy and second-order convergence of the D3Q19 solver with half-way bounce-back
// walls and pressure inlet/outlet.
#include "spaces.hpp"

#include <pk/lbm/analytic.hpp>
#include <pk/lbm/solver.hpp>

#include <cmath>
#include <cstdio>

namespace {

using namespace pk::lbm;

template <class Space>
class LbmPoiseuilleValidation : public ::testing::Test {};
TYPED_TEST_SUITE(LbmPoiseuilleValidation, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

struct DuctError {
  double l2;            // ||u - u_exact|| / ||u_exact|| over the mid cross-section
  double centre_speed;  // lattice units
  double steps;
};

// Square duct, `width` fluid cells across, 6 cells long (the profile is fully
// developed everywhere: pressure cells impose a uniform density and zero transverse
// velocity, as the exact solution has). Diffusive scaling: tau fixed at 1, centre speed
// 0.2 / width, so the compressibility error (Mach^2) falls as width^-2 like the wall error.
// The pressure gradient and density are read at the mid cross-section, so the reference is
// the analytic profile of the flow the solver actually drives.
template <class Space, class Real>
DuctError duct_error(int width, Streaming streaming) {
  const int length = 6;
  const double tau = 1.0, nu = (tau - 0.5) / 3, centre_speed = 0.2 / width;
  const double gradient = centre_speed * nu / (0.0736713 * width * width);  // square duct: u_c = 0.07367 g a^2 / mu
  const double density_drop = 3 * gradient * (length - 1);                  // p = rho / 3
  Parameters p;
  p.tau = tau;
  p.streaming = streaming;
  p.inlet_density = 1 + density_drop / 2;
  p.outlet_density = 1 - density_drop / 2;
  p.check_interval = 500;
  const Geometry geometry = box_channel(length, width, width);
  Solver<Space, Real> solver(Space{}, geometry, p);
  // Start from the steady pressure field at rest: only the viscous spin-up is left.
  std::vector<double> density(geometry.cell_count()), velocity(3 * geometry.cell_count(), 0.0);
  for (int z = 0; z < geometry.nz(); ++z)
    for (int y = 0; y < geometry.ny(); ++y)
      for (int x = 0; x < geometry.nx(); ++x)
        density[geometry.cell_index(x, y, z)] = p.inlet_density - density_drop * x / (length - 1);
  solver.initialize(density, velocity);
  // Slowest mode decays as exp(-2 pi^2 nu t / a^2): 0.9 a^2 / nu steps leave < 1e-7 of it.
  const int steps = static_cast<int>(0.9 * width * width / nu);
  solver.advance(steps);
  const HostFields f = solver.fields();

  const int xm = length / 2;
  double rho_mid = 0, drho = 0;
  for (int z = 1; z <= width; ++z)
    for (int y = 1; y <= width; ++y) {
      rho_mid += f.density[geometry.cell_index(xm, y, z)];
      drho += f.density[geometry.cell_index(xm + 1, y, z)] - f.density[geometry.cell_index(xm - 1, y, z)];
    }
  rho_mid /= width * width;
  const double g = -drho / (width * width) / 2 / 3;  // -dp/dx
  double err2 = 0, ref2 = 0;
  for (int z = 1; z <= width; ++z)
    for (int y = 1; y <= width; ++y) {
      // walls half-way between the last fluid and first solid cell: centre at (width + 1) / 2
      const double exact = duct_velocity(y - (width + 1) / 2.0, z - (width + 1) / 2.0, width, width, g, rho_mid * nu);
      const double u = f.velocity[3 * geometry.cell_index(xm, y, z)];
      err2 += (u - exact) * (u - exact);
      ref2 += exact * exact;
    }
  return {std::sqrt(err2 / ref2), centre_speed, double(steps)};
}

// Least-squares slope of log(error) against log(1 / width).
double convergence_order(const std::vector<int>& widths, const std::vector<double>& errors) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = widths.size();
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const double x = -std::log(double(widths[i])), y = std::log(errors[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

TYPED_TEST(LbmPoiseuilleValidation, DuctFlowIsSecondOrderAccurate) {
  const std::vector<int> widths = {8, 16, 32};
  std::vector<double> errors;
  for (int w : widths) {
    const DuctError e = duct_error<TypeParam, double>(w, Streaming::aa);
    std::printf("[ poiseuille ] fp64 A-A duct %2d x %2d: L2 error %.3e (centre speed %.4f, %g steps)\n", w, w, e.l2,
                e.centre_speed, e.steps);
    errors.push_back(e.l2);
    EXPECT_LT(e.l2, 0.01) << "width " << w;
  }
  const double order = convergence_order(widths, errors);
  std::printf("[ poiseuille ] fitted order %.3f (pairwise %.3f, %.3f)\n", order, std::log2(errors[0] / errors[1]),
              std::log2(errors[1] / errors[2]));
  EXPECT_GE(order, 1.7);
  EXPECT_LE(order, 2.5);
}

TYPED_TEST(LbmPoiseuilleValidation, SinglePrecisionAndABStreamingAreAsAccurate) {
  const DuctError aa32 = duct_error<TypeParam, float>(16, Streaming::aa);
  const DuctError ab32 = duct_error<TypeParam, float>(16, Streaming::ab);
  const DuctError aa64 = duct_error<TypeParam, double>(16, Streaming::aa);
  std::printf("[ poiseuille ] 16 x 16: L2 error fp32 A-A %.3e, fp32 A-B %.3e, fp64 A-A %.3e\n", aa32.l2, ab32.l2,
              aa64.l2);
  EXPECT_LT(aa32.l2, 0.01);
  EXPECT_LT(ab32.l2, 0.01);
  // fp32 rounding stays well below the discretisation error.
  EXPECT_NEAR(aa32.l2, aa64.l2, 0.1 * aa64.l2);
  EXPECT_NEAR(ab32.l2, aa64.l2, 0.1 * aa64.l2);
}

// fp16 storage (fp32 arithmetic) is as accurate as fp64 while the discretisation error
// dominates, then meets a floor from rounding the stored populations. In this diffusive
// scaling the centre speed, and with it a stored value's rounding step, falls as 1/width,
// while the slowest mode's decay rate per step falls as 1/width^2; the steady state moves by
// about a rounding step / decay rate, a relative error growing as width^2 (H100 and host:
// 0.63 %, 0.20 %, 1.08 % at widths 8, 16, 32, against fp64's 0.61 %, 0.17 %, 0.045 %).
TYPED_TEST(LbmPoiseuilleValidation, HalfPrecisionStorageIsAccurateToWidth16) {
  for (int w : {8, 16}) {
    const DuctError e16 = duct_error<TypeParam, pk::Binary16>(w, Streaming::aa);
    const DuctError e64 = duct_error<TypeParam, double>(w, Streaming::aa);
    std::printf("[ poiseuille ] fp16 A-A duct %2d x %2d: L2 error %.3e (fp64 %.3e)\n", w, w, e16.l2, e64.l2);
    EXPECT_LT(e16.l2, 0.01) << "width " << w;
    EXPECT_NEAR(e16.l2, e64.l2, 0.2 * e64.l2) << "width " << w;
  }
  const DuctError e32 = duct_error<TypeParam, pk::Binary16>(32, Streaming::aa);
  std::printf("[ poiseuille ] fp16 A-A duct 32 x 32: L2 error %.3e (the rounding floor)\n", e32.l2);
  EXPECT_LT(e32.l2, 0.02);
}

// fp16c storage (pk::Compact16: 11 mantissa bits, binary16's 10) halves the rounding step of
// the stored populations, all of which lie below 2, and with it the floor at width 32.
TYPED_TEST(LbmPoiseuilleValidation, CompactHalfStorageLowersTheFloorAtWidth32) {
  const DuctError e16 = duct_error<TypeParam, pk::Binary16>(32, Streaming::aa);
  const DuctError e16c = duct_error<TypeParam, pk::Compact16>(32, Streaming::aa);
  const DuctError e64 = duct_error<TypeParam, double>(32, Streaming::aa);
  std::printf("[ poiseuille ] 32 x 32: L2 error fp16c A-A %.3e, fp16 %.3e, fp64 %.3e\n", e16c.l2, e16.l2, e64.l2);
  EXPECT_LT(e16c.l2 - e64.l2, 0.7 * (e16.l2 - e64.l2));
}

}  // namespace
