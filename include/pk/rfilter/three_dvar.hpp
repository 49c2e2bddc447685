#pragma once
// 3D-Var in control-variable form, eq. (3): (I + V^T Psi V) v = V^T H^T R^-1 d with
// Psi = H^T R^-1 H, d = y - H x_b, B = V V^T and analysis x_a = x_b + V v. V is
// background_std * (normalisation) * the recursive filter along every axis: the
// paper's Gaussian covariance. V^T is applied with the adjoint recurrences; with the
// paper's end conditions the filter matrix is symmetric, so V^T = V as eq. (3) assumes
// (tstRfilter checks both).
#include <pk/core/blas.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/conjugate_gradient.hpp>
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/observations.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::rfilter {

struct BackgroundCovariance {
  Coefficients per_axis[3];   // filter along x, y, z (axes of extent 1 are skipped)
  double background_std = 1;  // sqrt of B's diagonal, away from the edges
};

inline void check_covariance(const BackgroundCovariance& b) {
  for (const auto& c : b.per_axis)
    require(c.iterations >= 1 && c.alpha > 0 && c.alpha < 1,
            "3D-Var: filter coefficients not set (use make_coefficients)");
  require(std::isfinite(b.background_std) && b.background_std > 0,
          "3D-Var: background error std must be > 0 (got " + std::to_string(b.background_std) + ")");
}

// The factor s of V = s F (F: the filter along every axis of extent > 1): with it
// B = V V^T has background_std^2 on its diagonal, as sum_t g_t^2 = 1 / (2 sqrt(pi) sigma)
// for a unit-mass Gaussian.
inline double covariance_root_scale(const Grid& grid, const BackgroundCovariance& covariance) {
  constexpr double pi = 3.14159265358979323846;
  const int extent[3] = {grid.nx, grid.ny, grid.nz};
  double scale = covariance.background_std;
  for (int a = 0; a < 3; ++a)
    if (extent[a] > 1) scale *= std::sqrt(2.0 * std::sqrt(pi) * covariance.per_axis[a].sigma);
  return scale;
}

namespace Details {
template <class ExecutionSpace, class Vector>
void scale_in_place(const ExecutionSpace& space, const Vector& x, double s) {
  Kokkos::parallel_for(
      "pk::rfilter::3dvar::scale", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(const long i) { x(i) *= s; });
}
}  // namespace Details

// V: the square root of B, acting in place on flat fields of the grid.
template <class ExecutionSpace>
class CovarianceRoot {
 public:
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>;
  using Field =
      Kokkos::View<double***, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space, Kokkos::MemoryUnmanaged>;

  CovarianceRoot(const ExecutionSpace& space, const Grid& grid, const BackgroundCovariance& covariance)
      : space_(space), grid_(grid), covariance_(covariance) {
    check_grid(grid);
    check_covariance(covariance);
    scale_ = covariance_root_scale(grid, covariance);
  }

  // x = V x (Transpose::no) or x = V^T x (Transpose::yes), in place.
  void apply(const Vector& x, Transpose transpose = Transpose::no) const {
    filter(x, transpose);
    Details::scale_in_place(space_, x, scale_);
  }
  // V = scale() F: x = F x or F^T x, in place (a product of V^T and V scales once, by scale()^2).
  void filter(const Vector& x, Transpose transpose = Transpose::no) const {
    require(static_cast<long>(x.extent(0)) == grid_.size(), "3D-Var: a field needs one entry per grid point");
    const Field field(x.data(), grid_.nx, grid_.ny, grid_.nz);
    apply_filter_all_axes(space_, field, covariance_.per_axis, transpose);
  }
  double scale() const { return scale_; }

 private:
  ExecutionSpace space_;
  Grid grid_;
  BackgroundCovariance covariance_;
  double scale_ = 1;
};

struct AnalysisResult {
  CgResult cg;
  double misfit_norm = 0;  // ||d|| = ||y - H x_b||
};

template <class ExecutionSpace>
class ThreeDVar {
 public:
  using Memory = typename ExecutionSpace::memory_space;
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, Memory>;

  ThreeDVar(const ExecutionSpace& space, const Grid& grid, const BackgroundCovariance& covariance,
            const Observations<Memory>& observations)
      : space_(space), grid_(grid), v_(space, grid, covariance), obs_(observations) {
    work_ = Vector(Kokkos::view_alloc(space, "pk::rfilter::3dvar::work"), grid.size());
    obs_work_ = Vector(Kokkos::view_alloc(space, "pk::rfilter::3dvar::observation_work"), observations.size());
  }

  // x = V x, in place.
  void apply_v(const Vector& x) const { v_.apply(x, Transpose::no); }
  // x = V^T x, in place.
  void apply_vt(const Vector& x) const { v_.apply(x, Transpose::yes); }

  // out = (I + V^T H^T R^-1 H V) in = in + s^2 F^T H^T R^-1 H F in (V = s F: one pass
  // over the grid scales, where V and V^T would take two).
  void apply_system(const Vector& in, const Vector& out) const {
    Kokkos::deep_copy(space_, work_, in);
    v_.filter(work_);
    interpolate(space_, grid_, obs_, work_, obs_work_);
    Kokkos::deep_copy(space_, out, 0.0);
    add_transpose(space_, grid_, obs_, obs_work_, out, WeightByInverseVariance::yes);
    v_.filter(out, Transpose::yes);
    blas::axpby(space_, 1.0, in, v_.scale() * v_.scale(), out);
  }

  // analysis = background + V v, v from CG on eq. (3); `control`: CG's (a restart, checkpoints).
  AnalysisResult analyse(const Vector& background, const Vector& analysis, double tolerance, int max_iterations,
                         const CgControl<Vector>& control = {}) const {
    require(static_cast<long>(background.extent(0)) == grid_.size() &&
                static_cast<long>(analysis.extent(0)) == grid_.size(),
            "3D-Var: background and analysis must have one entry per grid point");
    AnalysisResult result;
    // d = y - H x_b
    Vector misfit(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::misfit"), obs_.size());
    interpolate(space_, grid_, obs_, background, misfit);
    blas::axpby(space_, 1.0, obs_.value, -1.0, misfit);
    result.misfit_norm = blas::nrm2(space_, misfit);
    // b = V^T H^T R^-1 d
    Vector rhs(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::rhs"), grid_.size());
    add_transpose(space_, grid_, obs_, misfit, rhs, WeightByInverseVariance::yes);
    apply_vt(rhs);
    Vector v(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::control"), grid_.size());
    result.cg = conjugate_gradient(
        space_, [&](const auto& p, const auto& q) { apply_system(p, q); }, rhs, v, tolerance, max_iterations,
        LocalReduction{}, control);
    apply_v(v);
    Kokkos::deep_copy(space_, analysis, background);
    blas::axpby(space_, 1.0, v, 1.0, analysis);
    space_.fence();
    return result;
  }

 private:
  ExecutionSpace space_;
  Grid grid_;
  CovarianceRoot<ExecutionSpace> v_;
  Observations<Memory> obs_;
  Vector work_, obs_work_;
};

}  // namespace pk::rfilter
