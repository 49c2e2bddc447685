#pragma once
// Lines too long for a tile: one thread per line, in place in global memory.
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/line_recurrence.hpp>
#include <pk/rfilter/details/lines.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

template <class Field3>
KOKKOS_INLINE_FUNCTION double& at(const Field3& f, const int i[3]) {
  return f(i[0], i[1], i[2]);
}

template <class Line>
KOKKOS_INLINE_FUNCTION void run_line(const Line& line, int n, double alpha, double beta, int iterations, bool adjoint) {
  if (adjoint)
    filter_line_adjoint(line, n, alpha, beta, iterations);
  else
    filter_line(line, n, alpha, beta, iterations);
}

template <class ExecutionSpace, class Field3>
void filter_lines_in_place(const ExecutionSpace& space, const Field3& field,
                           const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c, bool adjoint) {
  const int n = g.length;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_in_place",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, g.lines), KOKKOS_LAMBDA(const long q) {
        int i0[3];
        g.index(q, 0, i0);
        auto line = [&](int j) -> double& {
          int i[3] = {i0[0], i0[1], i0[2]};
          i[g.axis] = j;
          return at(field, i);
        };
        run_line(line, n, alpha, beta, iterations, adjoint);
      });
}

}  // namespace pk::rfilter::Details
