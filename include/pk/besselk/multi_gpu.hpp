#pragma once
// The Matern log-likelihood, synthetic fields and maximum-likelihood fit on several GPUs of
// one node from one process (built with PK_ENABLE_CUSOLVERMG, CUDA only): the n x n
// covariance in column blocks dealt round-robin to the GPUs (cuSOLVERMg's 1-D block-cyclic
// layout), each GPU generating its own columns with the BesselK kernel on its own
// Kokkos::Cuda instance, and cuSOLVERMg factoring and solving across them (potrf, potrs).
// cuSOLVERMg comes with every CUDA toolkit (cuSOLVERMp and SLATE, which span nodes, are
// separate installs); across nodes, or on CPUs, pk/besselk/distributed.hpp does the same
// through ScaLAPACK.
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/locations.hpp>

#include <Kokkos_Core.hpp>

#include <memory>
#include <optional>
#include <vector>

namespace pk::besselk {

// One Kokkos::Cuda instance on each of the given GPUs (CUDA device numbers), each on a stream
// of its own that this object owns. Needs Kokkos >= 4.3 (instances on several GPUs).
class GpuInstances {
 public:
  explicit GpuInstances(const std::vector<int>& devices);
  ~GpuInstances();
  GpuInstances(const GpuInstances&) = delete;
  GpuInstances& operator=(const GpuInstances&) = delete;

  const std::vector<Kokkos::Cuda>& instances() const { return instances_; }

 private:
  std::vector<void*> streams_;  // cudaStream_t
  std::vector<Kokkos::Cuda> instances_;
};

// The covariance of `locations` over the GPUs of the instances, in column blocks of `block`;
// holds the tiles, cuSOLVERMg's workspace and a copy of the locations on every GPU.
// Throws pk::Error, naming the size that fits, when a GPU cannot hold its part. The instances
// (their GpuInstances) must outlive it.
class MultiGpuCovariance {
 public:
  MultiGpuCovariance(const std::vector<Kokkos::Cuda>& gpus, const Locations& locations, int block);
  ~MultiGpuCovariance();
  MultiGpuCovariance(const MultiGpuCovariance&) = delete;
  MultiGpuCovariance& operator=(const MultiGpuCovariance&) = delete;

  long n() const;
  int gpus() const;
  // The tiles' bytes on the GPU that holds the most columns (the workspace comes on top).
  static double tile_bytes_per_gpu(long n, int block, int gpus);

  // log|C| and z^T C^-1 z, or nothing when C is not positive definite.
  std::optional<LikelihoodParts> log_likelihood_parts(const std::vector<double>& z, const MaternParameters& p,
                                                      LikelihoodTimes* times = nullptr);
  // z = L e with e ~ N(0, I) drawn from `seed` as synthetic_observations draws it: the same
  // field to round-off. Throws pk::Error when C is not positive definite.
  std::vector<double> synthetic_observations(const MaternParameters& p, unsigned long seed);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// fit_matern over the GPUs of `covariance`.
Fit fit_matern_multi_gpu(MultiGpuCovariance& covariance, const std::vector<double>& z, const MaternParameters& start,
                         const OptimizerSettings& settings = {}, bool profile_variance = false);

}  // namespace pk::besselk
