#pragma once
// Dynamical models for GBEES: the drift f(x) of dx/dt = f(x), one component at a time.
//
// A model is one small, copyable functor that a kernel can call on any execution space:
//
//   struct MyModel {
//     double a = 1;                                            // parameters, by value
//     KOKKOS_INLINE_FUNCTION int dimension() const { return 2; }
//     // Component j (0-based) of the drift at state x[0..dimension()-1].
//     KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
//       return j == 0 ? x[1] : -a * x[0];
//     }
//   };
//   pk::gbees::Solver<Kokkos::OpenMP, MyModel> solver(space, MyModel{}, parameters);
//
// Component-wise evaluation lets the solver take f_j at the face x + h_j/2 e_j of a cell
// (where the flux through that face is needed) without storing velocities per cell.
// check_model<MyModel>() (which pk::gbees::Solver asserts) says at compile time what a type
// lacks of this.
#include <pk/gbees/parameters.hpp>  // max_dimension

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

namespace pk::gbees {

namespace Details {
template <class Model, class = void>
struct has_dimension : std::false_type {};
template <class Model>
struct has_dimension<Model, std::void_t<decltype(std::declval<const Model&>().dimension())>>
    : std::is_convertible<decltype(std::declval<const Model&>().dimension()), int> {};
template <class Model, class = void>
struct has_drift : std::false_type {};
template <class Model>
struct has_drift<Model, std::void_t<decltype(std::declval<const Model&>()(0, std::declval<const double*>()))>>
    : std::is_convertible<decltype(std::declval<const Model&>()(0, std::declval<const double*>())), double> {};
}  // namespace Details

// True for a type that can be a GBEES model; otherwise a compile error that names what is
// missing. Use it as static_assert(check_model<MyModel>()).
template <class Model>
constexpr bool check_model() {
  static_assert(std::is_copy_constructible_v<Model> && std::is_trivially_destructible_v<Model>,
                "a GBEES model is a small functor copied into every kernel: it must be copyable and trivially "
                "destructible (hold its parameters by value, no std::vector or std::string members)");
  static_assert(Details::has_dimension<Model>::value,
                "a GBEES model needs `KOKKOS_INLINE_FUNCTION int dimension() const`: the state's dimension");
  static_assert(Details::has_drift<Model>::value,
                "a GBEES model needs `KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const`: "
                "component j of the drift f(x)");
  return std::is_copy_constructible_v<Model> && std::is_trivially_destructible_v<Model> &&
         Details::has_dimension<Model>::value && Details::has_drift<Model>::value;
}

// Lorenz '63 in the paper's shifted form (sec. 5.1.1):
// f = (s (x2 - x1), -x2 - x1 x3, -b x3 + x1 x2 - b r), chaotic for (s, b, r) = (4, 1, 48).
struct Lorenz63 {
  double sigma = 4, b = 1, r = 48;
  static std::string name() { return "lorenz63"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return 3; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
    if (j == 0) return sigma * (x[1] - x[0]);
    if (j == 1) return -x[1] - x[0] * x[2];
    return -b * x[2] + x[0] * x[1] - b * r;
  }
};

// Lorenz '96 with n >= 4 variables and forcing F (sec. 5.1.2):
// f_j = (x_{j+1} - x_{j-2}) x_{j-1} - x_j + F, indices cyclic.
struct Lorenz96 {
  int n = 6;
  double forcing = 4;
  static std::string name() { return "lorenz96"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return n; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
    const int jp1 = j + 1 == n ? 0 : j + 1;
    const int jm1 = j == 0 ? n - 1 : j - 1;
    const int jm2 = j >= 2 ? j - 2 : j + n - 2;
    return (x[jp1] - x[jm2]) * x[jm1] - x[j] + forcing;
  }
};

// The circular restricted three-body problem in the rotating frame, nondimensional
// (Szebehely, "Theory of Orbits", 1967): the primaries of masses 1 - mu and mu sit at
// (-mu, 0, 0) and (1 - mu, 0, 0), distances and times in units of their separation and of
// 1 / their angular rate. With Omega = (x^2 + y^2) / 2 + (1 - mu) / r1 + mu / r2,
//   x'' - 2 y' = dOmega/dx,   y'' + 2 x' = dOmega/dy,   z'' = dOmega/dz.
// The flow is Hamiltonian, so div f = 0 (Liouville): probability moves without being
// compressed, the setting GBEES's fluxes are built for. The Jacobi constant
// C = 2 Omega + mu (1 - mu) - |v|^2 is conserved along every trajectory.
namespace Details {
// The two gravitational terms (1 - mu) / r1^3 and mu / r2^3 at the position (x, y, z).
KOKKOS_INLINE_FUNCTION void three_body_pulls(double mu, double x, double y, double z, double& pull1, double& pull2) {
  const double d1 = x + mu, d2 = x - 1 + mu, rho2 = y * y + z * z;
  const double r1 = ::sqrt(d1 * d1 + rho2), r2 = ::sqrt(d2 * d2 + rho2);
  pull1 = (1 - mu) / (r1 * r1 * r1);
  pull2 = mu / (r2 * r2 * r2);
}
// The Jacobi constant at position (x, y, z) and squared speed v2.
KOKKOS_INLINE_FUNCTION double jacobi_constant(double mu, double x, double y, double z, double v2) {
  const double d1 = x + mu, d2 = x - 1 + mu, rho2 = y * y + z * z;
  const double r1 = ::sqrt(d1 * d1 + rho2), r2 = ::sqrt(d2 * d2 + rho2);
  return x * x + y * y + 2 * (1 - mu) / r1 + 2 * mu / r2 + mu * (1 - mu) - v2;
}
}  // namespace Details

// Planar CR3BP: state (x, y, vx, vy), z = 0.
struct PCR3BP {
  double mu = 1.901109735892602e-7;  // Saturn-Enceladus, as gbees-cuda's PCR3BP example
  static std::string name() { return "pcr3bp"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return 4; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
    if (j < 2) return x[j + 2];
    double pull1, pull2;
    Details::three_body_pulls(mu, x[0], x[1], 0, pull1, pull2);
    if (j == 2) return 2 * x[3] + x[0] - pull1 * (x[0] + mu) - pull2 * (x[0] - 1 + mu);
    return -2 * x[2] + x[1] - (pull1 + pull2) * x[1];
  }
  KOKKOS_INLINE_FUNCTION double jacobi(const double* x) const {
    return Details::jacobi_constant(mu, x[0], x[1], 0, x[2] * x[2] + x[3] * x[3]);
  }
};

// Spatial CR3BP: state (x, y, z, vx, vy, vz).
struct CR3BP {
  double mu = 2.52801752854e-5;  // Jupiter-Europa, as gbees-cuda's CR3BP example
  static std::string name() { return "cr3bp"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return 6; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double* x) const {
    if (j < 3) return x[j + 3];
    double pull1, pull2;
    Details::three_body_pulls(mu, x[0], x[1], x[2], pull1, pull2);
    if (j == 3) return 2 * x[4] + x[0] - pull1 * (x[0] + mu) - pull2 * (x[0] - 1 + mu);
    if (j == 4) return -2 * x[3] + x[1] - (pull1 + pull2) * x[1];
    return -(pull1 + pull2) * x[2];
  }
  KOKKOS_INLINE_FUNCTION double jacobi(const double* x) const {
    return Details::jacobi_constant(mu, x[0], x[1], x[2], x[3] * x[3] + x[4] * x[4] + x[5] * x[5]);
  }
};

// Uniform drift (tests): every cell moves with the same velocity.
struct ConstantDrift {
  int n = 2;
  double velocity[max_dimension] = {};
  static std::string name() { return "constant"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return n; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double*) const { return velocity[j]; }
};

}  // namespace pk::gbees
