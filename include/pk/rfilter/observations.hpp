#pragma once
// Observations of a gridded field and the observation operator H: trilinear interpolation
// at each observation's position (grid coordinates, 0..n-1 per axis), and its transpose.
#include <pk/core/error.hpp>
#include <pk/rfilter/observation_set.hpp>

#include <pk/core/host_copies.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace pk::rfilter {

// Observations in an execution space's memory: positions, values, and R^-1 = 1/std^2.
template <class MemorySpace>
struct Observations {
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, MemorySpace>;
  Vector x, y, z, value, inverse_variance;
  long size() const { return static_cast<long>(value.extent(0)); }
};

template <class ExecutionSpace>
Observations<typename ExecutionSpace::memory_space> to_space(const ExecutionSpace& space, const ObservationSet& host,
                                                             const Grid& grid) {
  check_observations(host, grid);
  using Obs = Observations<typename ExecutionSpace::memory_space>;
  const std::size_t n = host.size();
  auto upload = [&](const char* label, auto&& value_of) {
    typename Obs::Vector v(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), n);
    auto mirror = pk::host_mirror(v);
    for (std::size_t i = 0; i < n; ++i) mirror(i) = value_of(i);
    Kokkos::deep_copy(space, v, mirror);
    space.fence();
    return v;
  };
  Obs obs;
  obs.x = upload("pk::rfilter::obs_x", [&](std::size_t i) { return host.x[i]; });
  obs.y = upload("pk::rfilter::obs_y", [&](std::size_t i) { return host.y[i]; });
  obs.z = upload("pk::rfilter::obs_z", [&](std::size_t i) { return host.z[i]; });
  obs.value = upload("pk::rfilter::obs_value", [&](std::size_t i) { return host.value[i]; });
  obs.inverse_variance = upload("pk::rfilter::obs_inverse_variance",
                                [&](std::size_t i) { return 1.0 / (host.error_std[i] * host.error_std[i]); });
  return obs;
}

namespace Details {

// Lower cell index and weight of the upper neighbour along one axis.
KOKKOS_INLINE_FUNCTION void cell_along(double coordinate, int n, int& lower, int& upper, double& weight) {
  if (n == 1) {
    lower = upper = 0;
    weight = 0;
    return;
  }
  int i = static_cast<int>(coordinate);  // coordinates are >= 0
  if (i > n - 2) i = n - 2;
  lower = i;
  upper = i + 1;
  weight = coordinate - i;
}

// Calls visit(flat_index, weight) for the 8 corners of the cell holding observation o.
template <class Obs, class Visit>
KOKKOS_INLINE_FUNCTION void for_each_corner(const Obs& obs, long o, const Grid& g, const Visit& visit) {
  int lo[3], hi[3];
  double w[3];
  cell_along(obs.x(o), g.nx, lo[0], hi[0], w[0]);
  cell_along(obs.y(o), g.ny, lo[1], hi[1], w[1]);
  cell_along(obs.z(o), g.nz, lo[2], hi[2], w[2]);
  for (int c = 0; c < 8; ++c) {
    const int a = c & 1, b = (c >> 1) & 1, e = (c >> 2) & 1;
    const double weight = (a ? w[0] : 1 - w[0]) * (b ? w[1] : 1 - w[1]) * (e ? w[2] : 1 - w[2]);
    const long ix = a ? hi[0] : lo[0], iy = b ? hi[1] : lo[1], iz = e ? hi[2] : lo[2];
    visit(ix + g.nx * (iy + static_cast<long>(g.ny) * iz), weight);
  }
}

}  // namespace Details

// values(o) = (H field)(o).
template <class ExecutionSpace, class Obs, class FieldVector, class ObsVector>
void interpolate(const ExecutionSpace& space, const Grid& grid, const Obs& obs, const FieldVector& field,
                 const ObsVector& values) {
  require(static_cast<long>(field.extent(0)) == grid.size() && static_cast<long>(values.extent(0)) == obs.size(),
          "observation operator: field or observation vector has the wrong size");
  Kokkos::parallel_for(
      "pk::rfilter::interpolate", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, obs.size()),
      KOKKOS_LAMBDA(const long o) {
        double sum = 0;
        Details::for_each_corner(obs, o, grid, [&](long i, double w) { sum += w * field(i); });
        values(o) = sum;
      });
}

// field += H^T (R^-1 values) when weighted by R^-1, else field += H^T values.
enum class WeightByInverseVariance { no, yes };
template <class ExecutionSpace, class Obs, class ObsVector, class FieldVector>
void add_transpose(const ExecutionSpace& space, const Grid& grid, const Obs& obs, const ObsVector& values,
                   const FieldVector& field, WeightByInverseVariance weighting) {
  require(static_cast<long>(field.extent(0)) == grid.size() && static_cast<long>(values.extent(0)) == obs.size(),
          "observation operator: field or observation vector has the wrong size");
  const bool weighted = weighting == WeightByInverseVariance::yes;
  Kokkos::parallel_for(
      "pk::rfilter::interpolate_transpose",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, obs.size()), KOKKOS_LAMBDA(const long o) {
        const double v = weighted ? values(o) * obs.inverse_variance(o) : values(o);
        // Observations share cells: accumulate atomically.
        Details::for_each_corner(obs, o, grid, [&](long i, double w) { Kokkos::atomic_add(&field(i), w * v); });
      });
}

}  // namespace pk::rfilter
