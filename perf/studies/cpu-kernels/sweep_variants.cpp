// The field filter's sweeps alone, in cache: K = 4 advancing and backing sweeps over a tile of W
// lines side by side (256 rows), as filter_lines_lockstep runs them (V 0: multiply, multiply,
// add, the library's form under -ffp-contract=off), and three variants: V 1 an fma a step, V 3
// and V 4 two steps at a time from the state before them (y_{j+1} = b e_{j+1} + a b e_j +
// a^2 y_{j-1}), with fmas or without. Nanoseconds per entry-step, the slowest thread's, on one
// thread and on all (each thread its own tile). No library code: it asks what a sweep costs a
// core, not what the library's kernel does around it.
//   g++ -O3 -march=x86-64-v4 -ffp-contract=off -fopenmp sweep_variants.cpp -o sweep_variants
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>
template <int W, int V>
__attribute__((noinline)) void sweeps(double* tile, int n, double a, double b, int iters) {
  auto row = [&](int j) { return tile + static_cast<long>(j) * W; };
  const double a2 = a * a, ab = a * b;
  auto sweep = [&](int from, int to, int step) {
    double y[W];
    for (int l = 0; l < W; ++l) y[l] = row(from)[l];
    int j = from + step;
    if (V >= 3) {
      for (; (step > 0 ? j + step <= to : j + step >= to); j += 2 * step) {
        double* e0 = row(j);
        double* e1 = row(j + step);
#pragma omp simd
        for (int l = 0; l < W; ++l) {
          double y0, y1;
          if (V == 3) {  // look-ahead, fma
            const double u = std::fma(ab, e0[l], b * e1[l]);
            y0 = std::fma(a, y[l], b * e0[l]);
            y1 = std::fma(a2, y[l], u);
          } else {  // look-ahead, mul/add
            const double u = ab * e0[l] + b * e1[l];
            y0 = b * e0[l] + a * y[l];
            y1 = u + a2 * y[l];
          }
          e0[l] = y0;
          e1[l] = y1;
          y[l] = y1;
        }
      }
    }
    for (; j != to + step; j += step) {
      double* e = row(j);
#pragma omp simd
      for (int l = 0; l < W; ++l) {
        if (V == 1)
          e[l] = y[l] = std::fma(a, y[l], b * e[l]);
        else
          e[l] = y[l] = b * e[l] + a * y[l];
      }
    }
  };
  for (int k = 0; k < iters; ++k) {
    sweep(0, n - 1, 1);
    sweep(n - 1, 0, -1);
  }
}
template <int W, int V>
void run(int n) {
  double r1 = 0, rall = 0;
  for (int threads : {1, omp_get_max_threads()}) {
    double worst = 0;
#pragma omp parallel num_threads(threads) reduction(max : worst)
    {
      std::vector<double> t(static_cast<size_t>(n) * W);
      for (size_t i = 0; i < t.size(); ++i) t[i] = (i % 97) * 0.01;
      double best = 1e9;
      for (int r = 0; r < 20; ++r) {
#pragma omp barrier
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < 32; ++k) sweeps<W, V>(t.data(), n, 0.3, 0.7, 4);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      worst = best / (8.0 * (n - 1) * W * 32) * 1e9;
    }
    (threads == 1 ? r1 : rall) = worst;
  }
  std::printf("W %2d V %d (%s): %.4f ns per entry-step on 1 thread, %.4f on %d\n", W, V,
              V == 0   ? "mul+add"
              : V == 1 ? "fma"
              : V == 3 ? "look-ahead fma"
                       : "look-ahead mul+add",
              r1, rall, omp_get_max_threads());
}
int main() {
  run<16, 0>(256);
  run<16, 1>(256);
  run<16, 3>(256);
  run<16, 4>(256);
  run<24, 0>(256);
  run<24, 1>(256);
  run<24, 3>(256);
  run<24, 4>(256);
  run<32, 0>(256);
  run<32, 1>(256);
  run<32, 3>(256);
  run<32, 4>(256);
  run<48, 0>(256);
  run<48, 3>(256);
  run<64, 0>(256);
  run<64, 3>(256);
}
