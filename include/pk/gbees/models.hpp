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
#include <Kokkos_Core.hpp>

#include <string>

namespace pk::gbees {

// The largest state dimension the solver handles (keys pack 64/n bits per axis).
inline constexpr int max_dimension = 8;

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

// Uniform drift (tests): every cell moves with the same velocity.
struct ConstantDrift {
  int n = 2;
  double velocity[max_dimension] = {};
  static std::string name() { return "constant"; }
  KOKKOS_INLINE_FUNCTION int dimension() const { return n; }
  KOKKOS_INLINE_FUNCTION double operator()(int j, const double*) const { return velocity[j]; }
};

}  // namespace pk::gbees
