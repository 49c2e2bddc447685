#pragma once
// Conjugate gradients for a symmetric positive definite operator, with the vector
// operations done by Kokkos Kernels (dot, axpby, nrm2: cuBLAS / host BLAS) on the
// caller's instance (pk/core/blas.hpp).
#include <pk/core/blas.hpp>
#include <pk/core/checks.hpp>
#include <pk/core/error.hpp>
#include <pk/core/interrupt.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>

namespace pk::rfilter {

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;       // ||r_k|| / ||b|| from the CG recurrence
  double true_relative_residual = 0;  // ||b - A x|| / ||b||, recomputed at the end
  bool converged = false;
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM (pk::interrupted)
};

// How CG reduces its vectors: dot products and norms of what this process holds. A
// distributed solver passes one that sums over ranks.
struct LocalReduction {
  template <class ExecutionSpace, class Vector>
  double dot(const ExecutionSpace& space, const Vector& a, const Vector& b) const {
    return blas::dot(space, a, b);
  }
  template <class ExecutionSpace, class Vector>
  double norm(const ExecutionSpace& space, const Vector& a) const {
    return blas::nrm2(space, a);
  }
};

// Solves A x = b from the initial guess in x; apply(p, q) must set q = A p, queuing its work
// on `space`. Stops when ||r|| <= tolerance ||b||, after max_iterations, or at
// SIGINT/SIGTERM (interrupt.hpp). Vectors: 1-D LayoutLeft views.
template <class Space, class Vector, class Apply, class Reduction = LocalReduction>
CgResult conjugate_gradient(const Space& space, const Apply& apply, const Vector& b, const Vector& x, double tolerance,
                            int max_iterations, const Reduction& reduction = {}) {
  static_assert(check_arguments<Space, Vector>());
  require(tolerance > 0 && tolerance < 1,
          "conjugate gradients: tolerance must be in (0, 1) (got " + std::to_string(tolerance) + ")");
  require(max_iterations >= 1, "conjugate gradients: max iterations must be >= 1");
  require(b.extent(0) == x.extent(0), "conjugate gradients: b and x have different lengths");
  const std::size_t n = b.extent(0);
  using Plain = Kokkos::View<double*, Kokkos::LayoutLeft, typename Vector::memory_space>;
  Plain r(Kokkos::view_alloc(space, "pk::rfilter::cg::residual"), n);
  Plain p(Kokkos::view_alloc(space, "pk::rfilter::cg::direction"), n);
  Plain ap(Kokkos::view_alloc(space, "pk::rfilter::cg::operator_times_direction"), n);
  CgResult result;
  const double b_norm = reduction.norm(space, b);
  if (b_norm == 0) {
    Kokkos::deep_copy(space, x, 0.0);
    space.fence();
    result.converged = true;
    return result;
  }
  Kokkos::deep_copy(space, p, x);
  apply(p, ap);
  Kokkos::deep_copy(space, r, b);
  blas::axpby(space, -1.0, ap, 1.0, r);  // r = b - A x
  Kokkos::deep_copy(space, p, r);
  double rr = reduction.dot(space, r, r);
  result.relative_residual = std::sqrt(rr) / b_norm;
  while (result.relative_residual > tolerance && result.iterations < max_iterations && !interrupted()) {
    apply(p, ap);
    const double step = rr / reduction.dot(space, p, ap);
    blas::axpby(space, step, p, 1.0, x);
    blas::axpby(space, -step, ap, 1.0, r);
    const double rr_next = reduction.dot(space, r, r);
    blas::axpby(space, 1.0, r, rr_next / rr, p);  // p = r + (rr_next / rr) p
    rr = rr_next;
    ++result.iterations;
    result.relative_residual = std::sqrt(rr) / b_norm;
  }
  result.converged = result.relative_residual <= tolerance;
  result.interrupted = !result.converged && interrupted();
  Kokkos::deep_copy(space, p, x);
  apply(p, ap);
  Kokkos::deep_copy(space, r, b);
  blas::axpby(space, -1.0, ap, 1.0, r);
  result.true_relative_residual = reduction.norm(space, r) / b_norm;
  return result;
}

}  // namespace pk::rfilter
