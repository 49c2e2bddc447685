#pragma once
// The Matern log-likelihood, synthetic fields and maximum-likelihood fit past one GPU (built
// with PK_ENABLE_SCALAPACK). The n x n covariance lives in ScaLAPACK's 2-D block-cyclic
// layout over the ranks of a communicator: each rank generates its own tiles with the
// BesselK kernel on its execution space, and ScaLAPACK factors and solves them on the ranks'
// CPUs (pdpotrf, pdtrsv, pdtrmv), as ExaGeoStat does with its own runtime. Locations and
// observations are on every rank (24 bytes a location, against 8 n^2 / ranks for the
// matrix). Every call is collective, and every rank gets the same bits back, so that each
// runs the same optimisation.
#include <pk/besselk/details/block_cyclic.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>

#include <Kokkos_Core.hpp>

#include <optional>
#include <random>
#include <vector>

namespace pk::besselk {

// The block-cyclic layout of an n x n matrix in blocks of `block` over a process grid as
// square as the rank count allows, with the ScaLAPACK routines that work on it; owns the
// BLACS grid. The routines take this rank's tiles on the host, LayoutLeft.
class BlockCyclic {
 public:
  BlockCyclic(const mpi::Communicator& comm, long n, int block);
  ~BlockCyclic();
  BlockCyclic(const BlockCyclic&) = delete;
  BlockCyclic& operator=(const BlockCyclic&) = delete;

  long n() const { return n_; }
  const Details::CyclicAxis& rows() const { return rows_; }  // this rank's rows of the matrix
  const Details::CyclicAxis& cols() const { return cols_; }
  int grid_rows() const { return static_cast<int>(rows_.procs); }
  int grid_cols() const { return static_cast<int>(cols_.procs); }

  // C = L L^T in place (pdpotrf, lower triangle); false, on every rank, when C is not
  // (numerically) positive definite.
  bool factor(double* tiles) const;
  // x = L^-1 x, or x = L x, with x whole on every rank.
  void solve_lower(const double* factor, std::vector<double>& x) const;
  void multiply_lower(const double* factor, std::vector<double>& x) const;
  // log|C| = 2 sum log L_ii.
  double log_determinant(const double* factor) const;

 private:
  // The whole vector on every rank from the rows that process column 0 holds.
  void gather_column(const std::vector<double>& local, std::vector<double>& x) const;
  void apply_lower(const double* factor, std::vector<double>& x, bool solve) const;

  mpi::Communicator comm_;
  long n_;
  Details::CyclicAxis rows_, cols_;
  int context_ = -1, system_context_ = -1;
  int descriptor_[9] = {}, vector_descriptor_[9] = {};
};

// This rank's tiles on its execution space, and their copy on the host for ScaLAPACK (the
// same View where the space runs on the host).
template <class ExecutionSpace>
struct LocalTiles {
  Matrix<ExecutionSpace> tiles;
  typename Matrix<ExecutionSpace>::HostMirror host;

  LocalTiles(const ExecutionSpace& space, const BlockCyclic& layout)
      : tiles(Kokkos::view_alloc(space, "pk::matern::local_tiles"), layout.rows().size, layout.cols().size),
        host(Kokkos::create_mirror_view(tiles)) {}
  // Bytes on the space, and on the host besides.
  static double device_bytes(const BlockCyclic& layout) { return 8.0 * layout.rows().size * layout.cols().size; }
  static double host_bytes(const BlockCyclic& layout) {
    return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecutionSpace::memory_space>::accessible
               ? 0.0
               : device_bytes(layout);
  }
};

namespace Details {
// The covariance's tiles generated on the space and factored on the host: false when C is
// not positive definite.
template <class ExecutionSpace>
bool factor_covariance(const ExecutionSpace& space, const BlockCyclic& layout, const DeviceLocations<ExecutionSpace>& s,
                       const MaternParameters& p, LocalTiles<ExecutionSpace>& work, LikelihoodTimes* times) {
  Kokkos::Timer timer;
  generate_local_covariance(space, layout.rows(), layout.cols(), s, p, work.tiles);
  Kokkos::deep_copy(space, work.host, work.tiles);
  space.fence();
  if (times) times->generate = timer.seconds();
  timer.reset();
  const bool positive_definite = layout.factor(work.host.data());
  if (times) times->factor = timer.seconds();
  return positive_definite;
}
}  // namespace Details

// log|C| and z^T C^-1 z, or nothing when C is not positive definite.
template <class ExecutionSpace>
std::optional<LikelihoodParts> distributed_log_likelihood_parts(const ExecutionSpace& space, const BlockCyclic& layout,
                                                                const DeviceLocations<ExecutionSpace>& s,
                                                                const std::vector<double>& z, const MaternParameters& p,
                                                                LocalTiles<ExecutionSpace>& work,
                                                                LikelihoodTimes* times = nullptr) {
  require(static_cast<long>(z.size()) == layout.n() && static_cast<long>(s.x.extent(0)) == layout.n(),
          "log-likelihood: one observation per location expected");
  if (!Details::factor_covariance(space, layout, s, p, work, times)) return std::nullopt;
  Kokkos::Timer timer;
  std::vector<double> w = z;
  layout.solve_lower(work.host.data(), w);
  double quadratic = 0;
  for (const double v : w) quadratic += v * v;
  const double log_det = layout.log_determinant(work.host.data());
  if (times) times->solve = timer.seconds();
  return LikelihoodParts{layout.n(), log_det, quadratic};
}

// z = L e with e ~ N(0, I) drawn from `seed` as synthetic_observations draws it: the same
// field to round-off. Throws pk::mpi::AgreedError when C is not positive definite.
template <class ExecutionSpace>
std::vector<double> distributed_synthetic_observations(const ExecutionSpace& space, const BlockCyclic& layout,
                                                       const DeviceLocations<ExecutionSpace>& s,
                                                       const MaternParameters& p, unsigned long seed,
                                                       LocalTiles<ExecutionSpace>& work) {
  if (!Details::factor_covariance(space, layout, s, p, work, nullptr))
    throw mpi::AgreedError(
        "the synthetic field's covariance matrix is not positive definite (duplicate or near-duplicate locations, "
        "or parameters that make it numerically singular)");
  std::vector<double> z(static_cast<std::size_t>(layout.n()));
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal(0, 1);
  for (double& v : z) v = normal(engine);
  layout.multiply_lower(work.host.data(), z);
  return z;
}

// fit_matern on the layout's ranks.
template <class ExecutionSpace>
Fit fit_matern_distributed(const ExecutionSpace& space, const BlockCyclic& layout,
                           const DeviceLocations<ExecutionSpace>& s, const std::vector<double>& z,
                           const MaternParameters& start, OptimizerSettings settings, const mpi::Communicator& comm,
                           bool profile_variance = false) {
  LocalTiles<ExecutionSpace> work(space, layout);
  // Signals reach the ranks at different times: every rank stops when any was signalled.
  settings.stop = [&comm] { return comm.bit_or(interrupted() ? 1u : 0u) != 0; };
  return Details::maximise_likelihood(
      [&](const MaternParameters& p) { return distributed_log_likelihood_parts(space, layout, s, z, p, work); }, start,
      settings, profile_variance);
}

}  // namespace pk::besselk
