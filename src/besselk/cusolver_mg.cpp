#include <pk/besselk/details/block_cyclic.hpp>
#include <pk/besselk/multi_gpu.hpp>
#include <pk/core/error.hpp>

#include <cuda_runtime.h>
// CUDA 13 marks cuSOLVERMg deprecated (for cuSOLVERMp, which is not part of the toolkit);
// it is still the multi-GPU solver every CUDA install has.
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cusolverMg.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <new>
#include <random>
#include <set>
#include <string>
#include <utility>

namespace pk::besselk {

namespace {

void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clears it
  throw Error(what + ": " + cudaGetErrorString(status));
}

void check(cusolverStatus_t status, const std::string& what) {
  require(status == CUSOLVER_STATUS_SUCCESS,
          "cuSOLVERMg " + what + " failed (status " + std::to_string(static_cast<int>(status)) + ")");
}

// Doubles on one GPU, zeroed: cuSOLVERMg's potrf reads the upper triangle of the diagonal
// blocks too (compute-sanitizer initcheck), which the covariance kernel does not write.
class DeviceBuffer {
 public:
  DeviceBuffer(int device, std::size_t count) : device_(device) {
    const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(double);
    check(cudaSetDevice(device), "cudaSetDevice");
    const cudaError_t status = cudaMalloc(&data_, bytes);
    if (status != cudaSuccess) {
      cudaGetLastError();
      data_ = nullptr;
      throw std::bad_alloc();
    }
    check(cudaMemset(data_, 0, bytes), "cudaMemset");
  }
  ~DeviceBuffer() {
    if (!data_) return;
    cudaSetDevice(device_);
    cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(data_, other.data_);
    return *this;
  }
  double* get() const { return static_cast<double*>(data_); }
  void copy_from(const double* host, std::size_t count, std::size_t offset = 0) const {
    check(cudaSetDevice(device_), "cudaSetDevice");
    check(cudaMemcpy(get() + offset, host, count * sizeof(double), cudaMemcpyHostToDevice), "copy to GPU");
  }
  void copy_to(double* host, std::size_t count, std::size_t offset = 0) const {
    check(cudaSetDevice(device_), "cudaSetDevice");
    check(cudaMemcpy(host, get() + offset, count * sizeof(double), cudaMemcpyDeviceToHost), "copy from GPU");
  }

 private:
  int device_ = 0;
  void* data_ = nullptr;
};

double free_bytes(int device) {
  std::size_t free = 0, total = 0;
  check(cudaSetDevice(device), "cudaSetDevice");
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  return static_cast<double>(free);
}

// The columns GPU `g` of `gpus` holds of n in blocks of `block`.
Details::CyclicAxis columns_of(long n, int block, int gpus, int g) {
  const long blocks = (n + block - 1) / block;
  long size = 0;
  for (long b = g; b < blocks; b += gpus) size += std::min<long>(block, n - b * block);
  return {block, gpus, g, size};
}

long padded_columns(long n, int block, int gpus) {
  const long blocks = (n + block - 1) / block;
  return (blocks + gpus - 1) / gpus * block;
}

// cuSOLVERMg reads peers' tiles directly where the GPUs allow it. Access stays enabled for the
// process, and enabling it twice is an error: each pair is enabled once.
void enable_peer_access(const std::vector<int>& devices) {
  static std::mutex mutex;
  static std::set<std::pair<int, int>> enabled;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const int a : devices)
    for (const int b : devices) {
      int can = 0;
      if (a == b || enabled.count({a, b}) || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can) continue;
      check(cudaSetDevice(a), "cudaSetDevice");
      check(cudaDeviceEnablePeerAccess(b, 0), "cudaDeviceEnablePeerAccess");
      enabled.insert({a, b});
    }
}

// 2 sum log L_jj over one GPU's columns j of the factor.
double log_diagonal(const Kokkos::Cuda& gpu, const Matrix<Kokkos::Cuda>& l, const Details::CyclicAxis& cols) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "pk::matern::multi_gpu::log_determinant", Kokkos::RangePolicy<Kokkos::Cuda>(gpu, 0, cols.size),
      KOKKOS_LAMBDA(const long c, double& s) { s += 2 * ::log(l(cols.global(c), c)); }, sum);
  return sum;
}

// out = (one GPU's columns of L) (their rows of e): the lower triangle only, the part of the
// columns that holds L.
void lower_times_vector(const Kokkos::Cuda& gpu, const Matrix<Kokkos::Cuda>& l, const Details::CyclicAxis& cols,
                        const Vector<Kokkos::Cuda>& e, const Vector<Kokkos::Cuda>& out) {
  Kokkos::parallel_for(
      "pk::matern::multi_gpu::lower_times_vector", Kokkos::RangePolicy<Kokkos::Cuda>(gpu, 0, l.extent(0)),
      KOKKOS_LAMBDA(const long i) {
        double sum = 0;
        for (long c = 0; c < cols.size; ++c) {
          const long j = cols.global(c);
          if (j > i) break;  // global columns rise with c
          sum += l(i, c) * e(j);
        }
        out(i) = sum;
      });
}

}  // namespace

GpuInstances::GpuInstances(const std::vector<int>& devices) {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  for (const int device : devices) {
    require(device >= 0 && device < count,
            "GPU " + std::to_string(device) + " does not exist: " + std::to_string(count) + " GPU(s) visible");
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaStream_t stream = nullptr;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    streams_.push_back(stream);
    instances_.emplace_back(stream);
  }
}

GpuInstances::~GpuInstances() {
  for (const auto& instance : instances_) instance.fence();
  instances_.clear();
  for (void* stream : streams_) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

struct MultiGpuCovariance::State {
  std::vector<Kokkos::Cuda> gpus;
  std::vector<int> devices;
  long n = 0;
  std::vector<Details::CyclicAxis> columns;                   // each GPU's
  std::vector<DeviceBuffer> tiles, work, vectors, locations;  // vectors: 2n a GPU (right-hand side, product)
  std::vector<void*> tile_pointers, work_pointers, rhs_pointers;
  cusolverMgHandle_t handle = nullptr;
  cudaLibMgGrid_t grid = nullptr;
  cudaLibMgMatrixDesc_t matrix = nullptr, rhs = nullptr;
  std::int64_t work_size = 0;

  ~State() {
    if (rhs) cusolverMgDestroyMatrixDesc(rhs);
    if (matrix) cusolverMgDestroyMatrixDesc(matrix);
    if (grid) cusolverMgDestroyGrid(grid);
    if (handle) cusolverMgDestroy(handle);
  }

  Matrix<Kokkos::Cuda> tiles_of(int g) const { return Matrix<Kokkos::Cuda>(tiles[g].get(), n, columns[g].size); }
  DeviceLocations<Kokkos::Cuda> locations_of(int g) const {
    return {Vector<Kokkos::Cuda>(locations[g].get(), n), Vector<Kokkos::Cuda>(locations[g].get() + n, n)};
  }
  Vector<Kokkos::Cuda> vector_of(int g, int which) const {
    return Vector<Kokkos::Cuda>(vectors[g].get() + which * n, n);
  }
  void fence() const {
    for (const auto& gpu : gpus) gpu.fence();
  }
  void synchronize_devices() const {
    for (const int device : devices) {
      check(cudaSetDevice(device), "cudaSetDevice");
      check(cudaDeviceSynchronize(), "cuSOLVERMg");
    }
  }

  // Every GPU's columns of C, then C = L L^T: false when C is not positive definite.
  bool factor(const MaternParameters& p, LikelihoodTimes* times) {
    Kokkos::Timer timer;
    const Details::CyclicAxis rows{n, 1, 0, n};  // every GPU holds whole columns
    for (std::size_t g = 0; g < gpus.size(); ++g)
      Details::generate_local_covariance(gpus[g], rows, columns[g], locations_of(g), p, tiles_of(g));
    fence();
    if (times) times->generate = timer.seconds();
    timer.reset();
    int info = 0;
    const cusolverStatus_t status =
        cusolverMgPotrf(handle, CUBLAS_FILL_MODE_LOWER, static_cast<int>(n), tile_pointers.data(), 1, 1, matrix,
                        CUDA_R_64F, work_pointers.data(), work_size, &info);
    synchronize_devices();
    if (times) times->factor = timer.seconds();
    // cuSOLVERMg (CUDA 13.0) reports a matrix that is not positive definite as an internal
    // error rather than through info, as every singular covariance tried did.
    if (status == CUSOLVER_STATUS_INTERNAL_ERROR) return false;
    check(status, "potrf");
    require(info >= 0, "cuSOLVERMg potrf: argument " + std::to_string(-info) + " is wrong");
    return info == 0;
  }

  double log_determinant() const {
    double sum = 0;
    for (std::size_t g = 0; g < gpus.size(); ++g) sum += log_diagonal(gpus[g], tiles_of(g), columns[g]);
    return sum;
  }
};

MultiGpuCovariance::MultiGpuCovariance(const std::vector<Kokkos::Cuda>& gpus, const Locations& locations, int block)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.gpus = gpus;
  s.n = static_cast<long>(locations.size());
  const int count = static_cast<int>(gpus.size());
  require(count >= 1, "multi-GPU covariance: no GPU given");
  require(s.n >= 2 && s.n <= std::numeric_limits<int>::max(), "multi-GPU covariance: n must be in [2, 2^31)");
  require(block >= 1, "multi-GPU covariance: the block size must be >= 1");
  for (const auto& gpu : gpus) s.devices.push_back(gpu.cuda_device());
  for (int g = 0; g < count; ++g) s.columns.push_back(columns_of(s.n, block, count, g));

  // Refused before anything is allocated when a GPU cannot hold its tiles.
  const double tiles = tile_bytes_per_gpu(s.n, block, count);
  const auto refuse = [&](int g, double need) {
    const double free = free_bytes(s.devices[g]);
    const double fit = s.n * std::sqrt(0.9 * free / need);
    char line[256];
    std::snprintf(line, sizeof line,
                  "%ld locations on %d GPU(s) need about %.4g GB on GPU %d, which has %.4g GB free: about %.0f "
                  "locations fit (lower --locations, or use more GPUs)",
                  s.n, count, need / 1e9, s.devices[g], free / 1e9, fit);
    throw Error(line);
  };
  for (int g = 0; g < count; ++g)
    if (tiles + 32.0 * s.n > 0.9 * free_bytes(s.devices[g])) refuse(g, tiles + 32.0 * s.n);

  enable_peer_access(s.devices);
  check(cusolverMgCreate(&s.handle), "create");
  check(cusolverMgDeviceSelect(s.handle, count, s.devices.data()), "device selection");
  check(cusolverMgCreateDeviceGrid(&s.grid, 1, count, s.devices.data(), CUDALIBMG_GRID_MAPPING_COL_MAJOR), "grid");
  check(cusolverMgCreateMatrixDesc(&s.matrix, s.n, s.n, s.n, block, CUDA_R_64F, s.grid), "matrix descriptor");
  check(cusolverMgCreateMatrixDesc(&s.rhs, s.n, 1, s.n, 1, CUDA_R_64F, s.grid), "vector descriptor");

  const long padded = padded_columns(s.n, block, count);
  try {
    for (int g = 0; g < count; ++g) {
      s.tiles.emplace_back(s.devices[g], static_cast<std::size_t>(s.n) * padded);
      s.vectors.emplace_back(s.devices[g], 2 * static_cast<std::size_t>(s.n));
      s.locations.emplace_back(s.devices[g], 2 * static_cast<std::size_t>(s.n));
    }
  } catch (const std::bad_alloc&) {
    const int g = static_cast<int>(s.locations.size());
    s.tiles.clear();
    s.vectors.clear();
    s.locations.clear();
    refuse(g, tiles + 32.0 * s.n);
  }
  for (int g = 0; g < count; ++g) {
    s.tile_pointers.push_back(s.tiles[g].get());
    s.rhs_pointers.push_back(s.vectors[g].get());
    s.locations[g].copy_from(locations.x.data(), s.n);
    s.locations[g].copy_from(locations.y.data(), s.n, s.n);
  }
  std::int64_t factor_work = 0, solve_work = 0;
  const int size = static_cast<int>(s.n);
  check(cusolverMgPotrf_bufferSize(s.handle, CUBLAS_FILL_MODE_LOWER, size, s.tile_pointers.data(), 1, 1, s.matrix,
                                   CUDA_R_64F, &factor_work),
        "potrf workspace query");
  check(cusolverMgPotrs_bufferSize(s.handle, CUBLAS_FILL_MODE_LOWER, size, 1, s.tile_pointers.data(), 1, 1, s.matrix,
                                   s.rhs_pointers.data(), 1, 1, s.rhs, CUDA_R_64F, &solve_work),
        "potrs workspace query");
  s.work_size = std::max(factor_work, solve_work);
  try {
    for (int g = 0; g < count; ++g) {
      s.work.emplace_back(s.devices[g], static_cast<std::size_t>(s.work_size));
      s.work_pointers.push_back(s.work[g].get());
    }
  } catch (const std::bad_alloc&) {
    const int g = static_cast<int>(s.work.size());
    s.work.clear();
    s.tiles.clear();
    refuse(g, tiles + 8.0 * s.work_size + 32.0 * s.n);
  }
}

MultiGpuCovariance::~MultiGpuCovariance() = default;

long MultiGpuCovariance::n() const { return state_->n; }

int MultiGpuCovariance::gpus() const { return static_cast<int>(state_->gpus.size()); }

double MultiGpuCovariance::tile_bytes_per_gpu(long n, int block, int gpus) {
  return 8.0 * n * padded_columns(n, block, gpus);
}

std::optional<LikelihoodParts> MultiGpuCovariance::log_likelihood_parts(const std::vector<double>& z,
                                                                        const MaternParameters& p,
                                                                        LikelihoodTimes* times) {
  State& s = *state_;
  require(static_cast<long>(z.size()) == s.n, "log-likelihood: one observation per location expected");
  if (!s.factor(p, times)) return std::nullopt;
  Kokkos::Timer timer;
  const double log_det = s.log_determinant();
  // The first GPU holds the right-hand side's one column block: x = C^-1 z there.
  s.vectors[0].copy_from(z.data(), z.size());
  int info = 0;
  check(cusolverMgPotrs(s.handle, CUBLAS_FILL_MODE_LOWER, static_cast<int>(s.n), 1, s.tile_pointers.data(), 1, 1,
                        s.matrix, s.rhs_pointers.data(), 1, 1, s.rhs, CUDA_R_64F, s.work_pointers.data(), s.work_size,
                        &info),
        "potrs");
  s.synchronize_devices();
  require(info == 0, "cuSOLVERMg potrs: argument " + std::to_string(-info) + " is wrong");
  std::vector<double> x(z.size());
  s.vectors[0].copy_to(x.data(), x.size());
  double quadratic = 0;
  for (std::size_t i = 0; i < z.size(); ++i) quadratic += z[i] * x[i];
  if (times) times->solve = timer.seconds();
  return LikelihoodParts{s.n, log_det, quadratic};
}

std::vector<double> MultiGpuCovariance::synthetic_observations(const MaternParameters& p, unsigned long seed) {
  State& s = *state_;
  require(s.factor(p, nullptr),
          "the synthetic field's covariance matrix is not positive definite (duplicate or near-duplicate locations, "
          "or parameters that make it numerically singular)");
  std::vector<double> e(static_cast<std::size_t>(s.n));
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal(0, 1);
  for (double& v : e) v = normal(engine);
  // Each GPU multiplies its columns; their parts are summed on the host in a fixed order.
  for (std::size_t g = 0; g < s.gpus.size(); ++g) {
    s.vectors[g].copy_from(e.data(), e.size());
    lower_times_vector(s.gpus[g], s.tiles_of(g), s.columns[g], s.vector_of(g, 0), s.vector_of(g, 1));
  }
  s.fence();
  std::vector<double> z(e.size(), 0.0), part(e.size());
  for (std::size_t g = 0; g < s.gpus.size(); ++g) {
    s.vectors[g].copy_to(part.data(), part.size(), s.n);
    for (std::size_t i = 0; i < z.size(); ++i) z[i] += part[i];
  }
  return z;
}

Fit fit_matern_multi_gpu(MultiGpuCovariance& covariance, const std::vector<double>& z, const MaternParameters& start,
                         const OptimizerSettings& settings, bool profile_variance) {
  return Details::maximise_likelihood([&](const MaternParameters& p) { return covariance.log_likelihood_parts(z, p); },
                                      start, settings, profile_variance);
}

}  // namespace pk::besselk
