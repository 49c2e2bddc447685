#pragma once
// 3D-Var on several MPI ranks (built with PK_ENABLE_MPI): the grid split along x into
// slabs, one per rank, which are the chunks of the overlapped decomposition (Algorithm 2,
// eqs. (10)-(11) with t = ranks). V filters along x each slab with m entries of each
// neighbour it has (at the grid's ends, the filter's end conditions, as apply_filter_chunked
// does) and keeps its own; along y and z a slab holds whole lines. So this V is the chunked
// one, and the analysis differs from one rank's by the chunking error at the seams (m = 2.5
// sigma: the paper's choice). V^T is its exact transpose: own entries filtered with the
// adjoint, the halo parts added into the neighbours. Observations go to the rank owning their cell's lower x
// corner, which reads one more x layer of its upper neighbour (H) and adds into it (H^T).
// CG's dot products and norms are summed over ranks with MPI_Allreduce.
//
// CG iterates on vectors in the extended layout (details/x_halo.hpp): the slab with m x
// layers of room on each side that has a neighbour, zero there between operator calls, so
// that the halos are exchanged in place and the x filter runs on the extended lines without
// copies.
//
//   pk::rfilter::DistributedThreeDVar<Kokkos::OpenMP> var(world, space, grid, covariance, overlap, observations);
//   var.analyse(background, analysis, 1e-8, 200);  // background, analysis: this rank's slab
#include <pk/core/blas.hpp>
#include <pk/core/timing.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/rfilter/conjugate_gradient.hpp>
#include <pk/rfilter/details/mpi_reduction.hpp>
#include <pk/rfilter/details/slab_share.hpp>
#include <pk/rfilter/details/x_halo.hpp>
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/observations.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace pk::rfilter {

// The x range [begin, end) of a rank's slab: chunk `rank` of eqs. (10)-(11).
struct XSlab {
  int begin = 0, end = 1;
  int size() const { return end - begin; }
};

inline XSlab x_slab(int nx, int ranks, int rank) {
  const int d = nx / ranks, r = nx % ranks;
  const int begin = rank * d + (rank < r ? rank : r);
  return {begin, begin + d + (rank < r ? 1 : 0)};
}

template <class ExecutionSpace>
class DistributedThreeDVar {
 public:
  using Memory = typename ExecutionSpace::memory_space;
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, Memory>;

  // Collective. `grid`: the whole grid; `overlap`: m of the x chunks; `observations`: all
  // of them (every rank passes the same set; each keeps its own).
  DistributedThreeDVar(const mpi::Communicator& comm, const ExecutionSpace& space, const Grid& grid,
                       const BackgroundCovariance& covariance, int overlap, const ObservationSet& observations)
      : comm_(comm),
        space_(space),
        grid_(grid),
        covariance_(covariance),
        slab_(checked_slab(comm, grid, overlap)),
        overlap_(overlap),
        halo_(comm, space, slab_.size(), grid.ny, grid.nz, overlap),
        room_below_(halo_.room_below()),
        extended_grid_{room_below_ + slab_.size() + halo_.room_above(), grid.ny, grid.nz} {
    check_covariance(covariance);
    check_observations(observations, grid);
    scale_ = covariance_root_scale(grid, covariance);
    observations_ = to_space(
        space, Details::observations_of_slab(observations, grid, slab_.begin, slab_.end, room_below_, comm.rank() == 0),
        extended_grid_);
    obs_work_ = Vector(Kokkos::view_alloc(space, "pk::rfilter::3dvar::observation_work"), observations_.size());
    work_ = extended_vector("pk::rfilter::3dvar::work");
  }

  const XSlab& slab() const { return slab_; }
  // Whether halos pass through host memory (a GPU space, MPI not GPU-aware).
  bool staged() const { return halo_.staged(); }
  // Wall time this rank spent so far in each phase of the operators and of CG (each
  // computing phase ends with a fence; the rest of a solve is CG's vector operations).
  struct PhaseSeconds {
    double halo_exchanges = 0, reductions = 0, x_filter = 0, y_z_filters = 0, observation_operator = 0;
  };
  PhaseSeconds phase_seconds() const {
    PhaseSeconds s = phases_;
    s.halo_exchanges = halo_.seconds();
    s.reductions = reduction_seconds_;
    return s;
  }
  // Entries of this rank's slab vectors: slab x extent * ny * nz, x fastest.
  long local_size() const { return static_cast<long>(slab_.size()) * grid_.ny * grid_.nz; }
  // Entries of CG's vectors on this rank: the slab in the extended layout (CgState).
  long cg_size() const { return extended_grid_.size(); }

  // x = V x on this rank's slab (collective).
  void apply_v(const Vector& x) {
    const Vector e = extended(x);
    apply_v_extended(e);
    keep_slab(e, x);
  }

  // x = V^T x on this rank's slab (collective).
  void apply_vt(const Vector& x) {
    const Vector e = extended(x);
    apply_vt_extended(e);
    keep_slab(e, x);
  }

  // analysis = background + V v, v from CG on eq. (3) (collective; this rank's slabs).
  // `control`: CG's (a restart, checkpoints), on vectors in the extended layout.
  AnalysisResult analyse(const Vector& background, const Vector& analysis, double tolerance, int max_iterations,
                         const CgControl<Vector>& control = {}) {
    require(static_cast<long>(background.extent(0)) == local_size() &&
                static_cast<long>(analysis.extent(0)) == local_size(),
            "3D-Var: background and analysis must have one entry per point of the rank's slab");
    const Details::MpiReduction reduction{comm_.get(), &reduction_seconds_};
    AnalysisResult result;
    Vector misfit(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::misfit"), observations_.size());
    observe(extended(background), misfit);
    blas::axpby(space_, 1.0, observations_.value, -1.0, misfit);  // d = y - H x_b
    result.misfit_norm = reduction.norm(space_, misfit);
    const Vector rhs = extended_vector("pk::rfilter::3dvar::rhs");
    add_observed_transpose(misfit, rhs);
    apply_vt_extended(rhs);
    const Vector v = extended_vector("pk::rfilter::3dvar::control");
    result.cg = conjugate_gradient(
        space_, [&](const auto& p, const auto& q) { apply_system(p, q); }, rhs, v, tolerance, max_iterations, reduction,
        control);
    apply_v_extended(v);
    keep_slab(v, analysis);
    blas::axpby(space_, 1.0, background, 1.0, analysis);
    space_.fence();
    return result;
  }

 private:
  using Field = typename Details::XHalo<ExecutionSpace>::Field;

  // A vector in the extended layout, zero.
  Vector extended_vector(const char* label) const {
    return Vector(Kokkos::view_alloc(space_, std::string(label)), extended_grid_.size());
  }
  Field as_extended_field(const Vector& v) const {
    return Field(v.data(), extended_grid_.nx, extended_grid_.ny, extended_grid_.nz);
  }
  Field as_slab_field(const Vector& v) const { return Field(v.data(), slab_.size(), grid_.ny, grid_.nz); }
  auto slab_part(const Vector& e) const {
    return Kokkos::subview(as_extended_field(e), Kokkos::pair<int, int>(room_below_, room_below_ + slab_.size()),
                           Kokkos::ALL, Kokkos::ALL);
  }
  // A slab vector in the extended layout (room zero), and back.
  Vector extended(const Vector& x) const {
    const Vector e = extended_vector("pk::rfilter::3dvar::extended");
    Kokkos::deep_copy(space_, slab_part(e), as_slab_field(x));
    return e;
  }
  void keep_slab(const Vector& e, const Vector& x) const {
    Kokkos::deep_copy(space_, as_slab_field(x), slab_part(e));
    space_.fence();
  }

  // This rank's slab; the same checks on every rank (they depend on the sizes only).
  static XSlab checked_slab(const mpi::Communicator& comm, const Grid& grid, int overlap) {
    Details::check_x_split(comm.size(), grid, overlap);
    return x_slab(grid.nx, comm.size(), comm.rank());
  }

  // The slab of x := V x (room: anything on entry, not zero on exit).
  void apply_v_extended(const Vector& x) {
    filter_extended(x, Transpose::no);
    phases_.y_z_filters += fenced_seconds(space_, [&] { Details::scale_in_place(space_, x, scale_); });
  }

  // x := V^T x (room zero on entry and on exit).
  void apply_vt_extended(const Vector& x) {
    phases_.y_z_filters += fenced_seconds(space_, [&] { Details::scale_in_place(space_, x, scale_); });
    filter_extended(x, Transpose::yes);
  }

  // V = scale_ F: x := F x (the slab; room as for V) or F^T x (room zero on entry and exit).
  void filter_extended(const Vector& x, Transpose transpose) {
    const Field field = as_extended_field(x);
    if (transpose == Transpose::no) {
      halo_.fill(field, overlap_, overlap_);
      phases_.x_filter += fenced_seconds(space_, [&] { apply_filter(space_, field, 0, covariance_.per_axis[0]); });
      phases_.y_z_filters += fenced_seconds(space_, [&] { filter_y_z(x, Transpose::no); });
    } else {
      phases_.y_z_filters += fenced_seconds(space_, [&] { filter_y_z(x, Transpose::yes); });
      phases_.x_filter +=
          fenced_seconds(space_, [&] { apply_filter(space_, field, 0, covariance_.per_axis[0], Transpose::yes); });
      halo_.add_back(field, overlap_, overlap_);
    }
  }

  // out = (I + V^T H^T R^-1 H V) in = in + s^2 F^T H^T R^-1 H F in (collective; extended
  // layout, room zero; V = s F: one pass scales, where V and V^T would take two).
  void apply_system(const Vector& in, const Vector& out) {
    Kokkos::deep_copy(space_, work_, in);
    filter_extended(work_, Transpose::no);
    observe(work_, obs_work_);
    Kokkos::deep_copy(space_, out, 0.0);
    add_observed_transpose(obs_work_, out);
    filter_extended(out, Transpose::yes);
    blas::axpby(space_, 1.0, in, scale_ * scale_, out);
  }

  // y then z (V), or z then y (V^T), as apply_filter_all_axes runs them, on every x layer.
  void filter_y_z(const Vector& x, Transpose transpose) {
    const Field field = as_extended_field(x);
    const int first = transpose == Transpose::no ? 1 : 2;
    for (int axis : {first, 3 - first})
      if (field.extent(axis) > 1) apply_filter(space_, field, axis, covariance_.per_axis[axis], transpose);
  }

  // values = H field: this rank's observations, from its slab and the upper rank's first
  // x layer, put in the first layer of room above the slab.
  void observe(const Vector& field, const Vector& values) {
    halo_.fill(as_extended_field(field), 0, 1);
    phases_.observation_operator +=
        fenced_seconds(space_, [&] { interpolate(space_, extended_grid_, observations_, field, values); });
  }
  // field += H^T R^-1 values, what lands in the layer above the slab added into the upper
  // rank's first layer (field's room: zero on entry and on exit).
  void add_observed_transpose(const Vector& values, const Vector& field) {
    phases_.observation_operator += fenced_seconds(space_, [&] {
      add_transpose(space_, extended_grid_, observations_, values, field, WeightByInverseVariance::yes);
    });
    halo_.add_back(as_extended_field(field), 0, 1);
  }

  mpi::Communicator comm_;
  ExecutionSpace space_;
  Grid grid_;
  BackgroundCovariance covariance_;
  XSlab slab_;
  int overlap_;  // m
  Details::XHalo<ExecutionSpace> halo_;
  int room_below_;      // x layers of room below the slab in the extended layout
  Grid extended_grid_;  // the slab and its room
  Observations<Memory> observations_;
  Vector work_, obs_work_;
  double scale_ = 1;
  double reduction_seconds_ = 0;
  PhaseSeconds phases_;
};

}  // namespace pk::rfilter
