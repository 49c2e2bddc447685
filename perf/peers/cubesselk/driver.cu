// PortableKernels' driver for CuBesselK (stsds/CuBesselK): K_nu at the points of pk-bench's
// besselk "evaluate" case (perf/bench/besselk.cpp, gp_point: nu in [0.05, 5], x log-uniform in
// [1e-3, 100], a fixed low-discrepancy pattern), evaluated by CuBesselK's own kernel
// (modified_besselkKernel, 256 threads a block as its BesselK_CUDA launches it) on arrays
// already on the GPU, timed with CUDA events: one warm-up, then the median of the repeats, as
// pk-bench times ours (kernel only, no transfers). The peer's source is compiled in unchanged.
//   pk-peer-cubesselk [points (2000000)] [repeats (5)] [bins (128)]
// It prints one line "CuBesselK: points P bins B repeats R median_s S min_s S max_s S
// evals_per_second E ..." and the GPU's name.
#include "logbesselk.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define PK_CHECK(call)                                                                  \
  do {                                                                                  \
    cudaError_t e = (call);                                                             \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "pk-peer-cubesselk: %s: %s\n", #call, cudaGetErrorString(e)); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

// The same points as perf/bench/besselk.cpp's gp_point.
static void gp_point(long i, double& nu, double& x) {
  const double u = std::fmod(0.5 + i * 0.6180339887498949, 1.0), v = std::fmod(0.5 + i * 0.7548776662466927, 1.0);
  nu = 0.05 + 4.95 * u;
  x = std::pow(10.0, -3 + 5 * v);
}

int main(int argc, char** argv) {
  const long points = argc > 1 ? std::atol(argv[1]) : 2000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int bins = argc > 3 ? std::atoi(argv[3]) : 128;
  if (points <= 0 || points > 2000000000L || repeats <= 0 || bins <= 0) {
    std::fprintf(stderr, "usage: pk-peer-cubesselk [points] [repeats] [bins]\n");
    return 2;
  }
  std::vector<double> hx(points), hnu(points), hk(points);
  for (long i = 0; i < points; ++i) gp_point(i, hnu[i], hx[i]);
  cudaDeviceProp prop;
  PK_CHECK(cudaGetDeviceProperties(&prop, 0));
  setIntervals(bins);  // CuBesselK's own setter (copies the bin count to the GPU)
  double *x, *nu, *k;
  PK_CHECK(cudaMalloc(&x, points * sizeof(double)));
  PK_CHECK(cudaMalloc(&nu, points * sizeof(double)));
  PK_CHECK(cudaMalloc(&k, points * sizeof(double)));
  PK_CHECK(cudaMemcpy(x, hx.data(), points * sizeof(double), cudaMemcpyHostToDevice));
  PK_CHECK(cudaMemcpy(nu, hnu.data(), points * sizeof(double), cudaMemcpyHostToDevice));
  const int threads = 256, blocks = static_cast<int>((points + threads - 1) / threads);
  cudaEvent_t start, stop;
  PK_CHECK(cudaEventCreate(&start));
  PK_CHECK(cudaEventCreate(&stop));
  std::vector<double> seconds;
  for (int r = 0; r <= repeats; ++r) {  // r == 0: warm-up
    PK_CHECK(cudaEventRecord(start));
    modified_besselkKernel<<<blocks, threads>>>(x, nu, k, static_cast<int>(points));
    PK_CHECK(cudaGetLastError());
    PK_CHECK(cudaEventRecord(stop));
    PK_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    PK_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) seconds.push_back(ms * 1e-3);
  }
  PK_CHECK(cudaMemcpy(hk.data(), k, points * sizeof(double), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (long i = 0; i < points; ++i) bad += !(std::isfinite(hk[i]) && hk[i] > 0);
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds.size() % 2 ? seconds[seconds.size() / 2]
                                           : 0.5 * (seconds[seconds.size() / 2 - 1] + seconds[seconds.size() / 2]);
  std::printf("CuBesselK: device %s\n", prop.name);
  std::printf("CuBesselK: points %ld bins %d repeats %d median_s %.9g min_s %.9g max_s %.9g evals_per_second %.6g "
              "not_finite %ld k0 %.17g\n",
              points, bins, repeats, median, seconds.front(), seconds.back(), points / median, bad, hk[0]);
  cudaFree(x);
  cudaFree(nu);
  cudaFree(k);
  return bad ? 3 : 0;
}
