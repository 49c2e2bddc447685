#pragma once
// The one seam between the codes and Kokkos Kernels' BLAS (cuBLAS, a host BLAS or Kokkos
// Kernels' own kernels behind the same calls): each call runs on the execution space
// instance it is given, as every other kernel of the project does. Kokkos Kernels 4.2 and
// later take the instance; older ones (the 3.4.01 fallback) run on the space's default
// instance, so the call is fenced in between: the caller's instance before, the default
// instance after. Include it only from code that links Kokkos Kernels.
#include <KokkosKernels_config.h>
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_nrm2.hpp>
#include <KokkosBlas2_gemv.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <KokkosBlas3_trsm.hpp>
#include <Kokkos_Core.hpp>

namespace pk::blas {

#if defined(KOKKOSKERNELS_VERSION) && KOKKOSKERNELS_VERSION >= 40200
inline constexpr bool takes_instance = true;
#else
inline constexpr bool takes_instance = false;
#endif

namespace Details {
// call(instance) on Kokkos Kernels that take one; else call() on the default instance,
// between fences of `space` and of that default instance. Inside a profiling region named
// `label`, so that tools see whose the library's kernels are.
template <class ExecutionSpace, class Call>
decltype(auto) on(const ExecutionSpace& space, const char* label, const Call& call) {
  static_assert(Kokkos::is_execution_space<ExecutionSpace>::value,
                "pk::blas: the first argument is an execution space");
  struct Region {  // ends also when the call returns a value or throws
    explicit Region(const char* name) { Kokkos::Profiling::pushRegion(name); }
    ~Region() { Kokkos::Profiling::popRegion(); }
  } region(label);
  if constexpr (takes_instance) {
    return call(space);
  } else {
    space.fence();
    struct Fence {
      ~Fence() { ExecutionSpace().fence(); }
    } fence;
    return call();
  }
}
}  // namespace Details

// x . y (waits for the result).
template <class ExecutionSpace, class X, class Y>
double dot(const ExecutionSpace& space, const X& x, const Y& y) {
  return Details::on(space, "pk::blas::dot",
                     [&](const auto&... instance) { return KokkosBlas::dot(instance..., x, y); });
}

// ||x||_2 (waits for the result).
template <class ExecutionSpace, class X>
double nrm2(const ExecutionSpace& space, const X& x) {
  return Details::on(space, "pk::blas::nrm2",
                     [&](const auto&... instance) { return KokkosBlas::nrm2(instance..., x); });
}

// y = a x + b y
template <class ExecutionSpace, class X, class Y>
void axpby(const ExecutionSpace& space, double a, const X& x, double b, const Y& y) {
  Details::on(space, "pk::blas::axpby", [&](const auto&... instance) { KokkosBlas::axpby(instance..., a, x, b, y); });
}

// y = alpha op(A) x + beta y
template <class ExecutionSpace, class A, class X, class Y>
void gemv(const ExecutionSpace& space, const char* trans, double alpha, const A& a, const X& x, double beta,
          const Y& y) {
  Details::on(space, "pk::blas::gemv",
              [&](const auto&... instance) { KokkosBlas::gemv(instance..., trans, alpha, a, x, beta, y); });
}

// C = alpha op(A) op(B) + beta C
template <class ExecutionSpace, class A, class B, class C>
void gemm(const ExecutionSpace& space, const char* trans_a, const char* trans_b, double alpha, const A& a, const B& b,
          double beta, const C& c) {
  Details::on(space, "pk::blas::gemm",
              [&](const auto&... instance) { KokkosBlas::gemm(instance..., trans_a, trans_b, alpha, a, b, beta, c); });
}

// B = alpha op(A)^-1 B (side "L") or alpha B op(A)^-1 (side "R"), A triangular.
template <class ExecutionSpace, class A, class B>
void trsm(const ExecutionSpace& space, const char* side, const char* uplo, const char* trans, const char* diag,
          double alpha, const A& a, const B& b) {
  Details::on(space, "pk::blas::trsm",
              [&](const auto&... instance) { KokkosBlas::trsm(instance..., side, uplo, trans, diag, alpha, a, b); });
}

}  // namespace pk::blas
