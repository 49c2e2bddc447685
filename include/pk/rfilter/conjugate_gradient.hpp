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
#include <functional>
#include <string>

namespace pk::rfilter {

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;       // ||r_k|| / ||b|| from the CG recurrence
  double true_relative_residual = 0;  // ||b - A x|| / ||b||, recomputed at the end
  bool converged = false;
  bool interrupted = false;  // stopped early by SIGINT/SIGTERM (pk::interrupted)
};

// CG's state after an iteration: all a checkpoint needs to continue bit for bit
// (rfilter/checkpoint.hpp). The views are CG's own: copy what must outlive the call.
template <class Vector>
struct CgState {
  Vector x, r, p;      // iterate, residual, search direction
  double rr = 0;       // r . r
  int iterations = 0;  // done so far
  bool last = false;   // CG stops after this one (converged, or at max_iterations)
};

// What a caller adds to a solve: a state to resume from (a restart) instead of the guess in
// x, and a call after every iteration, which stops the solve by returning false. Without
// one, CG stops at SIGINT or SIGTERM (pk::interrupted, agreed over the ranks).
template <class Vector>
struct CgControl {
  const CgState<Vector>* resume = nullptr;
  std::function<bool(const CgState<Vector>&)> after_iteration;
};

// How CG reduces its vectors: dot products and norms of what this process holds, and
// whether any process says yes. A distributed solver passes one that reduces over ranks.
struct LocalReduction {
  bool any(bool yes) const { return yes; }
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
// on `space`. Stops when ||r|| <= tolerance ||b||, after max_iterations, or as `control`
// says (by default at SIGINT/SIGTERM, interrupt.hpp). Vectors: 1-D LayoutLeft views.
template <class ExecutionSpace, class Vector, class Apply, class Reduction = LocalReduction>
CgResult conjugate_gradient(
    const ExecutionSpace& space, const Apply& apply, const Vector& b, const Vector& x, double tolerance,
    int max_iterations, const Reduction& reduction = {},
    const CgControl<Kokkos::View<double*, Kokkos::LayoutLeft, typename Vector::memory_space>>& control = {}) {
  static_assert(check_arguments<ExecutionSpace, Vector>());
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
  double rr = 0;
  if (const CgState<Plain>* resume = control.resume) {
    require(resume->x.extent(0) == n && resume->r.extent(0) == n && resume->p.extent(0) == n,
            "conjugate gradients: the state to resume from has vectors of another length");
    Kokkos::deep_copy(space, x, resume->x);
    Kokkos::deep_copy(space, r, resume->r);
    Kokkos::deep_copy(space, p, resume->p);
    rr = resume->rr;
    result.iterations = resume->iterations;
  } else {
    Kokkos::deep_copy(space, p, x);
    apply(p, ap);
    Kokkos::deep_copy(space, r, b);
    blas::axpby(space, -1.0, ap, 1.0, r);  // r = b - A x
    Kokkos::deep_copy(space, p, r);
    rr = reduction.dot(space, r, r);
  }
  result.relative_residual = std::sqrt(rr) / b_norm;
  bool stopped = !control.after_iteration && reduction.any(interrupted());
  while (result.relative_residual > tolerance && result.iterations < max_iterations && !stopped) {
    apply(p, ap);
    const double step = rr / reduction.dot(space, p, ap);
    blas::axpby(space, step, p, 1.0, x);
    blas::axpby(space, -step, ap, 1.0, r);
    const double rr_next = reduction.dot(space, r, r);
    blas::axpby(space, 1.0, r, rr_next / rr, p);  // p = r + (rr_next / rr) p
    rr = rr_next;
    ++result.iterations;
    result.relative_residual = std::sqrt(rr) / b_norm;
    const bool last = result.relative_residual <= tolerance || result.iterations >= max_iterations;
    if (control.after_iteration) {
      space.fence();
      stopped = !control.after_iteration(CgState<Plain>{x, r, p, rr, result.iterations, last});
    } else {
      stopped = reduction.any(interrupted());
    }
  }
  result.converged = result.relative_residual <= tolerance;
  result.interrupted = !result.converged && stopped;
  Kokkos::deep_copy(space, p, x);
  apply(p, ap);
  Kokkos::deep_copy(space, r, b);
  blas::axpby(space, -1.0, ap, 1.0, r);
  result.true_relative_residual = reduction.norm(space, r) / b_norm;
  return result;
}

}  // namespace pk::rfilter
