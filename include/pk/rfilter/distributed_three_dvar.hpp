#pragma once
// 3D-Var on several MPI ranks (built with PK_ENABLE_MPI): the grid split along x into
// slabs, one per rank, which are the chunks of the overlapped decomposition (Algorithm 2,
// eqs. (10)-(11) with t = ranks). V filters along x each slab with m entries of each
// neighbour on either side (zeros beyond the grid, as apply_filter_chunked does) and keeps
// its own; along y and z a slab holds whole lines. So this V is the chunked one, and the
// analysis differs from one rank's by the chunking error (m = 2.5 sigma: the paper's
// choice). V^T is its exact transpose: own entries filtered with the adjoint, the halo
// parts added into the neighbours. Observations go to the rank owning their cell's lower x
// corner, which reads one more x layer of its upper neighbour (H) and adds into it (H^T).
// CG's dot products and norms are summed over ranks with MPI_Allreduce.
//
//   pk::rfilter::DistributedThreeDVar<Kokkos::OpenMP> var(world, space, grid, covariance, overlap, observations);
//   var.analyse(background, analysis, 1e-8, 200);  // background, analysis: this rank's slab
#include <pk/core/spaces.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>
#include <pk/rfilter/conjugate_gradient.hpp>
#include <pk/rfilter/filter.hpp>
#include <pk/rfilter/observations.hpp>
#include <pk/rfilter/three_dvar.hpp>

#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
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

// CG reductions summed over the ranks of a communicator; the time spent in MPI_Allreduce
// (waiting for the slowest rank included) is added to *seconds where given.
struct MpiReduction {
  MPI_Comm comm;
  double* seconds = nullptr;
  template <class Vector>
  double dot(const Vector& a, const Vector& b) const {
    double local = KokkosBlas::dot(a, b), total = 0;
    Kokkos::Timer timer;
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (seconds) *seconds += timer.seconds();
    return total;
  }
  template <class Vector>
  double norm(const Vector& a) const {
    return std::sqrt(dot(a, a));
  }
};

namespace Details {

// target += source, layer by layer (a free function: nvcc takes no device lambda in a
// private member function).
template <class Space, class Target, class Source>
void add_layers(const Space& space, const Target& target, const Source& source) {
  Kokkos::parallel_for(
      "pk::rfilter::halo::add",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<3, Kokkos::Iterate::Left>, Kokkos::IndexType<int>>(
          space, {0, 0, 0},
          {static_cast<int>(source.extent(0)), static_cast<int>(source.extent(1)), static_cast<int>(source.extent(2))}),
      KOKKOS_LAMBDA(const int i, const int j, const int k) { target(i, j, k) += source(i, j, k); });
}

// A slab with `low` and `high` x layers of its neighbours around it (zeros where the grid
// ends; every rank has the same widths, and slabs at least as thick). gather() fills it
// from the ranks' slabs; scatter_add(), the transpose, adds it back.
template <class Space>
class XHalo {
 public:
  using Memory = typename Space::memory_space;
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, Memory>;
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, Memory>;

  XHalo(const mpi::Communicator& comm, const Space& space, const XSlab& slab, int ny, int nz, int low, int high)
      : comm_(comm),
        space_(space),
        own_(slab.size()),
        ny_(ny),
        nz_(nz),
        low_(low),
        high_(high),
        staged_(!runs_on_host<Space> && !mpi::gpu_aware()) {
    extended = Field(Kokkos::view_alloc(space, "pk::rfilter::halo::extended"), own_ + low + high, ny, nz);
    for (Buffer* b : {&send_down_, &send_up_, &from_lower_, &from_upper_}) {
      b->on_space =
          Flat(Kokkos::view_alloc(space, "pk::rfilter::halo::message"), std::size_t(std::max(low, high)) * ny * nz);
      if (staged_) b->on_host = Staged(Kokkos::view_alloc("pk::rfilter::halo::staged"), b->on_space.extent(0));
    }
  }

  // extended = [low layers of the lower rank | own | high layers of the upper rank].
  void gather(const Vector& own) {
    Kokkos::deep_copy(space_, centre(), as_field(own));
    exchange(layers(as_field(own), 0, high_), layers(as_field(own), own_ - low_, own_), false);
  }

  // extended = [zeros | own | zeros].
  void load(const Vector& own) {
    Kokkos::deep_copy(space_, layers(extended, 0, low_), 0.0);
    Kokkos::deep_copy(space_, layers(extended, low_ + own_, low_ + own_ + high_), 0.0);
    Kokkos::deep_copy(space_, centre(), as_field(own));
  }

  // own = centre of extended + the halo parts of the neighbours that cover own's layers.
  void scatter_add(const Vector& own) {
    Kokkos::deep_copy(space_, as_field(own), centre());
    exchange(layers(extended, 0, low_), layers(extended, own_ + low_, own_ + low_ + high_), true, own);
  }

  int low() const { return low_; }
  int high() const { return high_; }
  // Wall time in exchanges so far: staging, messages, unstaging (not the kernels before).
  double seconds() const { return seconds_; }
  bool staged() const { return staged_; }
  Field extended;

 private:
  using Unmanaged = Kokkos::View<double***, Kokkos::LayoutLeft, Memory, Kokkos::MemoryUnmanaged>;

  Unmanaged as_field(const Vector& v) const { return Unmanaged(v.data(), own_, ny_, nz_); }
  template <class F>
  static auto layers(const F& f, int begin, int end) {
    return Kokkos::subview(f, Kokkos::pair<int, int>(begin, end), Kokkos::ALL, Kokkos::ALL);
  }
  auto centre() const { return layers(extended, low_, low_ + own_); }

  // gather (add = false): `to_lower` fills the lower rank's high halo, `to_upper` the upper
  // rank's low halo; what arrives fills this rank's halos (zeros where none arrives).
  // scatter_add (add = true): `to_lower` / `to_upper` are this rank's halos; what arrives
  // is added to own's first high / last low layers.
  template <class ToLower, class ToUpper>
  void exchange(const ToLower& to_lower, const ToUpper& to_upper, bool add, const Vector& own = {}) {
    const int rank = comm_.rank(), lower = rank > 0 ? rank - 1 : MPI_PROC_NULL,
              upper = rank < comm_.size() - 1 ? rank + 1 : MPI_PROC_NULL;
    // gather: to the lower rank go `high` layers, from it come `low`; scatter_add: reversed
    const int down = add ? low_ : high_, up = add ? high_ : low_;
    space_.fence();
    Kokkos::Timer timer;
    stage_out(to_lower, send_down_, down);
    stage_out(to_upper, send_up_, up);
    space_.fence();
    MPI_Request requests[4];
    receive(from_lower_, up, lower, 0, requests[0]);
    receive(from_upper_, down, upper, 1, requests[1]);
    send(send_down_, down, lower, 1, requests[2]);
    send(send_up_, up, upper, 0, requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);  // buffers from MPI_PROC_NULL stay zero
    const auto from_lower = stage_in(from_lower_, up), from_upper = stage_in(from_upper_, down);
    if (!add) {
      Kokkos::deep_copy(space_, layers(extended, 0, low_), from_lower);
      Kokkos::deep_copy(space_, layers(extended, low_ + own_, low_ + own_ + high_), from_upper);
    } else {
      add_into(layers(as_field(own), own_ - low_, own_), from_upper);
      add_into(layers(as_field(own), 0, high_), from_lower);
    }
    space_.fence();
    seconds_ += timer.seconds();
  }

  // A message: `count` x layers, contiguous at the start of a buffer allocated once (a fresh
  // allocation per message cost more than the filter: page faults on hosts, cudaFree's
  // device synchronisation on GPUs). MPI reads it where it lies when it can (a host space, or
  // a GPU-aware MPI), else through pinned host memory.
  using Flat = Kokkos::View<double*, Memory>;
  using Staged = Kokkos::View<double*, StagingSpace<Space>>;
  struct Buffer {
    Flat on_space;
    Staged on_host;
  };
  double* message(const Buffer& b) const { return staged_ ? b.on_host.data() : b.on_space.data(); }
  Unmanaged on_space(const Buffer& b, int count) const { return Unmanaged(b.on_space.data(), count, ny_, nz_); }
  int doubles(int count) const { return count * ny_ * nz_; }

  template <class Source>
  void stage_out(const Source& source, const Buffer& b, int count) const {
    Kokkos::deep_copy(space_, on_space(b, count), source);
    const auto part = Kokkos::pair<std::size_t, std::size_t>(0, doubles(count));
    if (staged_) Kokkos::deep_copy(space_, Kokkos::subview(b.on_host, part), Kokkos::subview(b.on_space, part));
  }
  Unmanaged stage_in(const Buffer& b, int count) const {
    const auto part = Kokkos::pair<std::size_t, std::size_t>(0, doubles(count));
    if (staged_) Kokkos::deep_copy(space_, Kokkos::subview(b.on_space, part), Kokkos::subview(b.on_host, part));
    return on_space(b, count);
  }
  void receive(const Buffer& b, int count, int from, int tag, MPI_Request& request) const {
    MPI_Irecv(message(b), doubles(count), MPI_DOUBLE, from, tag, comm_.get(), &request);
  }
  void send(const Buffer& b, int count, int to, int tag, MPI_Request& request) const {
    MPI_Isend(message(b), doubles(count), MPI_DOUBLE, to, tag, comm_.get(), &request);
  }
  template <class Target>
  void add_into(const Target& target, const Unmanaged& source) const {
    if (source.extent(0) > 0) add_layers(space_, target, source);
  }

  mpi::Communicator comm_;
  Space space_;
  int own_, ny_, nz_, low_, high_;
  bool staged_;  // messages pass through host memory
  double seconds_ = 0;
  Buffer send_down_, send_up_, from_lower_, from_upper_;
};

}  // namespace Details

template <class Space>
class DistributedThreeDVar {
 public:
  using Memory = typename Space::memory_space;
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, Memory>;

  // Collective. `grid`: the whole grid; `overlap`: m of the x chunks; `observations`: all
  // of them (every rank passes the same set; each keeps its own).
  DistributedThreeDVar(const mpi::Communicator& comm, const Space& space, const Grid& grid,
                       const BackgroundCovariance& covariance, int overlap, const ObservationSet& observations)
      : comm_(comm),
        space_(space),
        grid_(grid),
        covariance_(covariance),
        slab_(checked_slab(comm, grid, overlap)),
        filter_halo_(comm, space, slab_, grid.ny, grid.nz, comm.size() > 1 ? overlap : 0,
                     comm.size() > 1 ? overlap : 0),
        observation_halo_(comm, space, slab_, grid.ny, grid.nz, 0, 1) {
    check_covariance(covariance);
    check_observations(observations, grid);
    constexpr double pi = 3.14159265358979323846;
    const int extent[3] = {grid.nx, grid.ny, grid.nz};
    scale_ = covariance.background_std;
    for (int a = 0; a < 3; ++a)
      if (extent[a] > 1) scale_ *= std::sqrt(2.0 * std::sqrt(pi) * covariance.per_axis[a].sigma);
    // this rank's observations: those whose cell's lower x corner it owns, in slab coordinates
    ObservationSet mine;
    for (std::size_t o = 0; o < observations.size(); ++o) {
      int lower = static_cast<int>(observations.x[o]);
      if (lower > grid.nx - 2) lower = grid.nx - 2;
      if (grid.nx > 1 ? lower < slab_.begin || lower >= slab_.end : comm.rank() != 0) continue;
      mine.x.push_back(observations.x[o] - slab_.begin);
      mine.y.push_back(observations.y[o]);
      mine.z.push_back(observations.z[o]);
      mine.value.push_back(observations.value[o]);
      mine.error_std.push_back(observations.error_std[o]);
    }
    observation_grid_ = Grid{slab_.size() + observation_halo_.high(), grid.ny, grid.nz};
    observations_ = to_space(space, mine, observation_grid_);
    obs_work_ = Vector(Kokkos::view_alloc(space, "pk::rfilter::3dvar::observation_work"), observations_.size());
    work_ = Vector(Kokkos::view_alloc(space, "pk::rfilter::3dvar::work"), local_size());
  }

  const XSlab& slab() const { return slab_; }
  // Whether halos pass through host memory (a GPU space, MPI not GPU-aware).
  bool staged() const { return filter_halo_.staged(); }
  // Wall time this rank spent communicating so far: halo exchanges and CG's reductions.
  double communication_seconds() const {
    return filter_halo_.seconds() + observation_halo_.seconds() + reduction_seconds_;
  }
  // Entries of this rank's slab vectors: slab x extent * ny * nz, x fastest.
  long local_size() const { return static_cast<long>(slab_.size()) * grid_.ny * grid_.nz; }

  // x = V x on this rank's slab (collective).
  void apply_v(const Vector& x) {
    filter_halo_.gather(x);
    apply_filter(space_, filter_halo_.extended, 0, covariance_.per_axis[0]);
    keep_centre(x);
    filter_y_z(x, Transpose::no);
    Details::scale_in_place(space_, x, scale_);
    space_.fence();
  }

  // x = V^T x on this rank's slab (collective).
  void apply_vt(const Vector& x) {
    filter_y_z(x, Transpose::yes);
    filter_halo_.load(x);
    apply_filter(space_, filter_halo_.extended, 0, covariance_.per_axis[0], Transpose::yes);
    filter_halo_.scatter_add(x);
    Details::scale_in_place(space_, x, scale_);
    space_.fence();
  }

  // out = (I + V^T H^T R^-1 H V) in (collective).
  void apply_system(const Vector& in, const Vector& out) {
    Kokkos::deep_copy(space_, work_, in);
    apply_v(work_);
    observe(work_, obs_work_);
    Kokkos::deep_copy(space_, out, 0.0);
    add_observed_transpose(obs_work_, out);
    apply_vt(out);
    space_.fence();
    KokkosBlas::axpby(1.0, in, 1.0, out);
    Kokkos::fence();
  }

  // analysis = background + V v, v from CG on eq. (3) (collective; this rank's slabs).
  AnalysisResult analyse(const Vector& background, const Vector& analysis, double tolerance, int max_iterations) {
    require(static_cast<long>(background.extent(0)) == local_size() &&
                static_cast<long>(analysis.extent(0)) == local_size(),
            "3D-Var: background and analysis must have one entry per point of the rank's slab");
    const MpiReduction reduction{comm_.get(), &reduction_seconds_};
    AnalysisResult result;
    Vector misfit(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::misfit"), observations_.size());
    observe(background, misfit);
    KokkosBlas::axpby(1.0, observations_.value, -1.0, misfit);  // d = y - H x_b
    result.misfit_norm = reduction.norm(misfit);
    Vector rhs(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::rhs"), local_size());
    add_observed_transpose(misfit, rhs);
    apply_vt(rhs);
    Vector control(Kokkos::view_alloc(space_, "pk::rfilter::3dvar::control"), local_size());
    result.cg = conjugate_gradient(
        space_, [&](const auto& p, const auto& q) { apply_system(p, q); }, rhs, control, tolerance, max_iterations,
        reduction);
    apply_v(control);
    Kokkos::deep_copy(analysis, background);
    KokkosBlas::axpby(1.0, control, 1.0, analysis);
    Kokkos::fence();
    return result;
  }

 private:
  using Unmanaged = Kokkos::View<double***, Kokkos::LayoutLeft, Memory, Kokkos::MemoryUnmanaged>;
  Unmanaged as_field(const Vector& v) const { return Unmanaged(v.data(), slab_.size(), grid_.ny, grid_.nz); }
  auto centre() const {
    const int low = filter_halo_.low();
    return Kokkos::subview(filter_halo_.extended, Kokkos::pair<int, int>(low, low + slab_.size()), Kokkos::ALL,
                           Kokkos::ALL);
  }
  void keep_centre(const Vector& x) { Kokkos::deep_copy(space_, as_field(x), centre()); }

  // This rank's slab; the same checks on every rank (they depend on the sizes only).
  static XSlab checked_slab(const mpi::Communicator& comm, const Grid& grid, int overlap) {
    check_grid(grid);
    const std::string ranks = "3D-Var on " + std::to_string(comm.size()) + " ranks: ";
    require(comm.size() <= grid.nx, ranks + "the grid has only " + std::to_string(grid.nx) + " x layers; use at most " +
                                        std::to_string(grid.nx) + " ranks");
    require(overlap >= 0 && (comm.size() == 1 || overlap <= grid.nx / comm.size()),
            ranks + "overlap " + std::to_string(overlap) + " is larger than the thinnest slab (" +
                std::to_string(grid.nx / comm.size()) + " x layers); use fewer ranks or a smaller overlap");
    return x_slab(grid.nx, comm.size(), comm.rank());
  }

  // y then z (V), or z then y (V^T), as apply_filter_all_axes runs them.
  void filter_y_z(const Vector& x, Transpose transpose) {
    const Unmanaged field = as_field(x);
    const int first = transpose == Transpose::no ? 1 : 2;
    for (int axis : {first, 3 - first})
      if (field.extent(axis) > 1) apply_filter(space_, field, axis, covariance_.per_axis[axis], transpose);
  }

  // values = H field: this rank's observations, from its slab and one x layer above it.
  void observe(const Vector& field, const Vector& values) {
    observation_halo_.gather(field);
    const Vector flat(observation_halo_.extended.data(), observation_halo_.extended.size());
    interpolate(space_, observation_grid_, observations_, flat, values);
    space_.fence();
  }
  // field += H^T R^-1 values, the layer above the slab added into the upper rank's slab.
  void add_observed_transpose(const Vector& values, const Vector& field) {
    observation_halo_.load(field);
    const Vector flat(observation_halo_.extended.data(), observation_halo_.extended.size());
    add_transpose(space_, observation_grid_, observations_, values, flat, WeightByInverseVariance::yes);
    observation_halo_.scatter_add(field);
  }

  mpi::Communicator comm_;
  Space space_;
  Grid grid_;
  BackgroundCovariance covariance_;
  XSlab slab_;
  Details::XHalo<Space> filter_halo_, observation_halo_;
  Grid observation_grid_;
  Observations<Memory> observations_;
  Vector work_, obs_work_;
  double scale_ = 1;
  double reduction_seconds_ = 0;
};

}  // namespace pk::rfilter
