#pragma once
// ScaLAPACK's 2-D block-cyclic distribution, one axis at a time, and the generation of a
// rank's tiles of the Matern covariance on its execution space (pk/besselk/distributed.hpp).
#include <pk/besselk/matern.hpp>

#include <Kokkos_Core.hpp>

namespace pk::besselk::Details {

// One axis of the layout: blocks of `block` dealt round-robin to `procs` process rows (or
// columns) from the first; this process is number `mine` and holds `size` of the entries.
struct CyclicAxis {
  long block = 1, procs = 1, mine = 0, size = 0;

  // The global index of local index l.
  KOKKOS_INLINE_FUNCTION long global(long l) const { return ((l / block) * procs + mine) * block + l % block; }
  // Whether global index g lies here, and its local index if so.
  KOKKOS_INLINE_FUNCTION bool holds(long g) const { return (g / block) % procs == mine; }
  KOKKOS_INLINE_FUNCTION long local(long g) const { return (g / block / procs) * block + g % block; }
};

// C(i, j) = Matern(|s_i - s_j|) for the entries i >= j of this rank's tiles (LayoutLeft,
// rows.size x cols.size): the lower triangle, all that pdpotrf reads.
template <class ExecutionSpace>
void generate_local_covariance(const ExecutionSpace& space, const CyclicAxis& rows, const CyclicAxis& cols,
                               const DeviceLocations<ExecutionSpace>& s, const MaternParameters& p,
                               const Matrix<ExecutionSpace>& c) {
  const MaternKernel<ExecutionSpace> kernel(p);
  const long local_rows = rows.size;
  const auto x = s.x, y = s.y;
  Kokkos::parallel_for(
      "pk::matern::generate_local_covariance",
      // Dynamic: the work sits in the lower triangle, which a static split shares unevenly.
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<long>>(
          space, 0, rows.size * cols.size),
      KOKKOS_LAMBDA(const long k) {
        const long li = k % local_rows, lj = k / local_rows;
        const long i = rows.global(li), j = cols.global(lj);
        if (i < j) return;
        const double dx = x(i) - x(j), dy = y(i) - y(j);
        c(li, lj) = kernel(::sqrt(dx * dx + dy * dy));
      });
}

}  // namespace pk::besselk::Details
