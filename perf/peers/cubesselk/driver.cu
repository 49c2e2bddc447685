// PortableKernels' driver for CuBesselK (stsds/CuBesselK): K_nu at the points of pk-bench's
// besselk "evaluate" case (perf/bench/besselk.cpp, gp_point: nu in [0.05, 5], x log-uniform in
// [1e-3, 100], a fixed low-discrepancy pattern), evaluated by CuBesselK's own kernel
// (modified_besselkKernel, 256 threads a block as its BesselK_CUDA launches it) on arrays
// already on the GPU, timed with CUDA events: one warm-up, then the median of the repeats, as
// pk-bench times ours (kernel only, no transfers). The peer's source is compiled in unchanged.
// Given the mpmath reference table (tests/besselk/reference.txt), it also evaluates its points
// and gives the largest error in the boxes pk-bench reports ours in, by pk-bench's measure.
//   pk-peer-cubesselk [points (2000000)] [repeats (5)] [bins (128)] [reference table]
// It prints one line "CuBesselK: points P bins B repeats R median_s S min_s S max_s S
// evals_per_second E ...", with a table one line "CuBesselK: accuracy ...", and the GPU's name.
#include "logbesselk.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
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

struct ReferencePoint {
  double nu, x, log_k, k;
};

// The table's points ("nu x log_K K" a line, # comments); K beyond the double range reads as
// inf or 0, as pk::besselk::read_reference reads it. Empty where the file cannot be read.
static std::vector<ReferencePoint> read_reference(const char* path) {
  std::vector<ReferencePoint> points;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string w[4];
    if (!(words >> w[0] >> w[1] >> w[2] >> w[3])) return {};
    double v[4];
    for (int c = 0; c < 4; ++c) {
      char* end = nullptr;
      v[c] = std::strtod(w[c].c_str(), &end);
      if (*end != '\0') return {};
    }
    points.push_back({v[0], v[1], v[2], v[3]});
  }
  return points;
}

// pk-bench's measure (perf/bench/besselk.cpp, pk::besselk::log_k_error and k_error): the larger
// of the errors of log K (here the log of the K returned) and of K where K is a normal double.
static double point_error(double got, const ReferencePoint& p) {
  const double log_got = std::log(got);
  double e = std::isfinite(log_got) ? std::fabs(log_got - p.log_k) / std::max(1.0, std::fabs(p.log_k)) : 1.0;
  if (p.k > 1e-300 && p.k < 1e300) e = std::max(e, std::isfinite(got) ? std::fabs(got - p.k) / p.k : 1.0);
  return e;
}

// The largest error over the points in nu [nu_lo, nu_hi], x [x_lo, x_hi]; NaN answers are
// counted as unanswered, as pk-bench counts them.
static double max_error(const std::vector<ReferencePoint>& ref, const std::vector<double>& k, double nu_lo,
                        double nu_hi, double x_lo, double x_hi, long& points, long& unanswered) {
  double worst = 0;
  points = unanswered = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (ref[i].nu < nu_lo || ref[i].nu > nu_hi || ref[i].x < x_lo || ref[i].x > x_hi) continue;
    ++points;
    if (std::isnan(k[i]))
      ++unanswered;
    else
      worst = std::max(worst, point_error(k[i], ref[i]));
  }
  return worst;
}

int main(int argc, char** argv) {
  const long points = argc > 1 ? std::atol(argv[1]) : 2000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int bins = argc > 3 ? std::atoi(argv[3]) : 128;
  if (points <= 0 || points > 2000000000L || repeats <= 0 || bins <= 0) {
    std::fprintf(stderr, "usage: pk-peer-cubesselk [points] [repeats] [bins] [reference table]\n");
    return 2;
  }
  std::vector<ReferencePoint> ref;
  if (argc > 4 && (ref = read_reference(argv[4])).empty()) {
    std::fprintf(stderr, "pk-peer-cubesselk: no reference points read from '%s'\n", argv[4]);
    return 2;
  }
  std::vector<double> hx(points), hnu(points), hk(points);
  for (long i = 0; i < points; ++i) gp_point(i, hnu[i], hx[i]);
  cudaDeviceProp prop;
  PK_CHECK(cudaGetDeviceProperties(&prop, 0));
  setIntervals(bins);  // CuBesselK's own setter (copies the bin count to the GPU)
  double *x, *nu, *k;
  // Room for the reference points too, which go through the same arrays after the timing.
  const size_t room = std::max<size_t>(points, ref.size()) * sizeof(double);
  PK_CHECK(cudaMalloc(&x, room));
  PK_CHECK(cudaMalloc(&nu, room));
  PK_CHECK(cudaMalloc(&k, room));
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
  if (!ref.empty()) {
    // The reference points through the same kernel, after the timing.
    const int n = static_cast<int>(ref.size());
    std::vector<double> rx(n), rnu(n), rk(n);
    for (int i = 0; i < n; ++i) rx[i] = ref[i].x, rnu[i] = ref[i].nu;
    PK_CHECK(cudaMemcpy(x, rx.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    PK_CHECK(cudaMemcpy(nu, rnu.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    modified_besselkKernel<<<(n + threads - 1) / threads, threads>>>(x, nu, k, n);
    PK_CHECK(cudaGetLastError());
    PK_CHECK(cudaMemcpy(rk.data(), k, n * sizeof(double), cudaMemcpyDeviceToHost));
    long box_points, box_unanswered, gp_points, gp_unanswered;
    // pk-bench's boxes: the tested box (every order, x in [1e-6, 700]) and gp_point's.
    const double box = max_error(ref, rk, 0, 50, 1e-6, 700, box_points, box_unanswered);
    const double gp = max_error(ref, rk, 0.05, 5, 1e-3, 100, gp_points, gp_unanswered);
    std::printf("CuBesselK: accuracy reference_points %d box_points %ld max_rel_error %.6g unanswered %ld "
                "gp_points %ld max_rel_error_gp %.6g\n",
                n, box_points, box, box_unanswered, gp_points, gp);
  }
  cudaFree(x);
  cudaFree(nu);
  cudaFree(k);
  return bad ? 3 : 0;
}
