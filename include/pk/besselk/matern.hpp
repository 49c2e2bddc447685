#pragma once
// The Matern covariance C(r) = sigma^2 2^{1-nu} / Gamma(nu) (r/beta)^nu K_nu(r/beta), with
// C(0) = sigma^2, for n locations in 2-D kept in Morton order (as ExaGeoStat does, so that
// nearby locations are nearby rows and a tile of the matrix covers a compact patch), and
// the generation of the n x n matrix on an execution space.
#include <pk/besselk/besselk.hpp>
#include <pk/besselk/locations.hpp>
#include <pk/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::besselk {

struct MaternParameters {
  double variance = 1;      // sigma^2
  double range = 0.1;       // beta
  double smoothness = 0.5;  // nu
};

inline void check_parameters(const MaternParameters& p) {
  require(std::isfinite(p.variance) && p.variance > 0,
          "Matern variance sigma^2 = " + std::to_string(p.variance) + ": must be > 0");
  require(std::isfinite(p.range) && p.range > 0, "Matern range beta = " + std::to_string(p.range) + ": must be > 0");
  require(p.smoothness > 0 && p.smoothness <= max_order,
          "Matern smoothness nu = " + std::to_string(p.smoothness) + ": must be in (0, " + std::to_string(max_order) +
              "] (K_nu is evaluated for 0 <= nu <= 50; nu = 0 has no Matern covariance)");
}

// The kernel as a small value type for device code; the normalisation is taken on the host.
// ExecutionSpace: the space whose kernels evaluate it (K_nu's form for it, besselk.hpp).
template <class ExecutionSpace = void>
struct MaternKernel {
  double variance, inverse_range, nu, log_scale, scale;  // log_scale = log(2^{1-nu} / Gamma(nu))

  explicit MaternKernel(const MaternParameters& p)
      : variance(p.variance),
        inverse_range(1 / p.range),
        nu(p.smoothness),
        log_scale((1 - p.smoothness) * std::log(2.0) - std::lgamma(p.smoothness)),
        scale(std::exp(log_scale)) {
    check_parameters(p);
  }

  KOKKOS_INLINE_FUNCTION double operator()(double r) const {
    if (r == 0) return variance;  // the limit: x^nu K_nu(x) -> 2^{nu-1} Gamma(nu)
    const double x = r * inverse_range;
    const BesselK k = evaluate<ExecutionSpace>(nu, x);
    // Values where K is a normal double (no cancellation of nu log x against log K at
    // small x); logs where it overflows (high nu, tiny x) or underflows (far apart).
    if (k.value > 1e-300 && k.value < 1e300) return variance * scale * ::pow(x, nu) * k.value;
    return variance * ::exp(log_scale + nu * ::log(x) + k.log_value);
  }
};

template <class ExecutionSpace>
using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>;
template <class ExecutionSpace>
using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>;

template <class ExecutionSpace>
struct DeviceLocations {
  Vector<ExecutionSpace> x, y;
};

template <class ExecutionSpace>
DeviceLocations<ExecutionSpace> to_space(const ExecutionSpace& space, const Locations& host) {
  DeviceLocations<ExecutionSpace> d{Vector<ExecutionSpace>(Kokkos::view_alloc(space, "pk::matern::x"), host.size()),
                                    Vector<ExecutionSpace>(Kokkos::view_alloc(space, "pk::matern::y"), host.size())};
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> hx(host.x.data(), host.size()),
      hy(host.y.data(), host.size());
  Kokkos::deep_copy(space, d.x, hx);
  Kokkos::deep_copy(space, d.y, hy);
  space.fence();
  return d;
}

// C(i, j) = Matern(|s_i - s_j|) for i >= j: the lower triangle, all that the Cholesky
// factorisation reads (the strict upper triangle is left as it was). LayoutLeft:
// consecutive threads take consecutive rows i of one column, so the stores coalesce.
template <class ExecutionSpace>
void generate_covariance(const ExecutionSpace& space, const DeviceLocations<ExecutionSpace>& s,
                         const MaternParameters& p, const Matrix<ExecutionSpace>& c) {
  const MaternKernel<ExecutionSpace> kernel(p);
  const long n = static_cast<long>(s.x.extent(0));
  require(c.extent(0) == static_cast<std::size_t>(n) && c.extent(1) == static_cast<std::size_t>(n),
          "generate_covariance: matrix must be n x n");
  const auto x = s.x, y = s.y;
  Kokkos::parallel_for(
      "pk::matern::generate_covariance",
      // Dynamic: the work sits in the lower triangle, which a static split shares unevenly.
      // 64-bit indices: n^2 passes 2^31 at n = 46341.
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<long>>(space, 0, n * n),
      KOKKOS_LAMBDA(const long k) {
        const long i = k % n, j = k / n;
        if (i < j) return;
        const double dx = x(i) - x(j), dy = y(i) - y(j);
        c(i, j) = kernel(::sqrt(dx * dx + dy * dy));
      });
}

}  // namespace pk::besselk
