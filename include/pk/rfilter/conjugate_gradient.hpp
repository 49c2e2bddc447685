#pragma once
// Conjugate gradients for a symmetric positive definite operator, with the vector
// operations done by Kokkos Kernels (KokkosBlas dot, axpby, nrm2: cuBLAS / host BLAS).
#include <pk/core/error.hpp>
#include <pk/core/interrupt.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
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
  template <class Vector>
  double dot(const Vector& a, const Vector& b) const {
    return KokkosBlas::dot(a, b);
  }
  template <class Vector>
  double norm(const Vector& a) const {
    return KokkosBlas::nrm2(a);
  }
};

// Solves A x = b from the initial guess in x; apply(p, q) must set q = A p. Stops when
// ||r|| <= tolerance ||b||, after max_iterations, or as `control` says (by default at
// SIGINT/SIGTERM, interrupt.hpp). Vectors: 1-D LayoutLeft views.
template <class Space, class Vector, class Apply, class Reduction = LocalReduction>
CgResult conjugate_gradient(
    const Space& space, const Apply& apply, const Vector& b, const Vector& x, double tolerance, int max_iterations,
    const Reduction& reduction = {},
    const CgControl<Kokkos::View<double*, Kokkos::LayoutLeft, typename Vector::memory_space>>& control = {}) {
  require(tolerance > 0 && tolerance < 1,
          "conjugate gradients: tolerance must be in (0, 1) (got " + std::to_string(tolerance) + ")");
  require(max_iterations >= 1, "conjugate gradients: max iterations must be >= 1");
  require(b.extent(0) == x.extent(0), "conjugate gradients: b and x have different lengths");
  const std::size_t n = b.extent(0);
  using Plain = Kokkos::View<double*, Kokkos::LayoutLeft, typename Vector::memory_space>;
  Plain r(Kokkos::view_alloc(space, "pk::rfilter::cg::residual"), n);
  Plain p(Kokkos::view_alloc(space, "pk::rfilter::cg::direction"), n);
  Plain ap(Kokkos::view_alloc(space, "pk::rfilter::cg::operator_times_direction"), n);
  // KokkosBlas calls without an instance run on the space's default instance: fence
  // between them and the operator, which runs on `space`.
  auto apply_fenced = [&](const Plain& in, const Plain& out) {
    Kokkos::fence();
    apply(in, out);
    space.fence();
  };

  CgResult result;
  const double b_norm = reduction.norm(b);
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
    space.fence();
    rr = resume->rr;
    result.iterations = resume->iterations;
  } else {
    Kokkos::deep_copy(space, p, x);
    apply_fenced(p, ap);
    Kokkos::deep_copy(space, r, b);
    space.fence();
    KokkosBlas::axpby(-1.0, ap, 1.0, r);  // r = b - A x
    Kokkos::deep_copy(p, r);
    rr = reduction.dot(r, r);
  }
  result.relative_residual = std::sqrt(rr) / b_norm;
  bool stopped = !control.after_iteration && reduction.any(interrupted());
  while (result.relative_residual > tolerance && result.iterations < max_iterations && !stopped) {
    apply_fenced(p, ap);
    const double step = rr / reduction.dot(p, ap);
    KokkosBlas::axpby(step, p, 1.0, x);
    KokkosBlas::axpby(-step, ap, 1.0, r);
    const double rr_next = reduction.dot(r, r);
    KokkosBlas::axpby(1.0, r, rr_next / rr, p);  // p = r + (rr_next / rr) p
    rr = rr_next;
    ++result.iterations;
    result.relative_residual = std::sqrt(rr) / b_norm;
    const bool last = result.relative_residual <= tolerance || result.iterations >= max_iterations;
    if (control.after_iteration) {
      Kokkos::fence();
      stopped = !control.after_iteration(CgState<Plain>{x, r, p, rr, result.iterations, last});
    } else {
      stopped = reduction.any(interrupted());
    }
  }
  result.converged = result.relative_residual <= tolerance;
  result.interrupted = !result.converged && stopped;
  Kokkos::deep_copy(p, x);
  apply_fenced(p, ap);
  Kokkos::deep_copy(r, b);
  KokkosBlas::axpby(-1.0, ap, 1.0, r);
  result.true_relative_residual = reduction.norm(r) / b_norm;
  Kokkos::fence();
  return result;
}

}  // namespace pk::rfilter
