// What a CPU's memory gives a copy of S source arrays into S target arrays at once, run by run,
// as the LBM rows traversal moves its 19 (A-A) or 38 (A-B) streams: each thread walks its
// share of the indices a cache line at a time and copies that line of every array before the
// next. The footprint is an A-B lattice's (2 x 19 x bytes a population x n^3) whatever S is, so
// S = 1 is the copy probe's two streams and S = 19 the A-B step's pattern without its
// arithmetic. GB/s of bytes read and written (a line written is counted once), the median and
// the best of the repeats, all threads. No library code: it asks what the memory system gives
// that pattern, not what the library's kernel does.
//   g++ -O3 -march=x86-64-v4 -fopenmp stream_count.cpp -o stream_count
//   ./stream_count [REPEATS]
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int line = 16;  // floats a 64-byte line

// dst[s][i] = src[s][i] over every array, line by line, each thread its static share; with
// `ahead`, each array's line 512 bytes on asked for first, as the rows traversal's default.
template <bool ahead>
__attribute__((noinline)) void copy_runs(float* const* src, float* const* dst, int streams, long lines) {
#pragma omp parallel for schedule(static)
  for (long l = 0; l < lines; ++l) {
    for (int s = 0; s < streams; ++s) {
      const float* from = src[s] + l * line;
      float* to = dst[s] + l * line;
      if (ahead) {
        __builtin_prefetch(from + 8 * line, 0);
        __builtin_prefetch(to + 8 * line, 1);
      }
#pragma omp simd
      for (int k = 0; k < line; ++k) to[k] = from[k];
    }
  }
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 15;
  if (repeats < 3 || repeats > 1000) {
    std::fprintf(stderr, "stream_count: REPEATS must be 3 to 1000\n");
    return 2;
  }
  std::printf("threads %d\n", omp_get_max_threads());
  std::printf("%-6s %-10s %-8s %-8s %-9s %-12s %-10s\n", "n", "precision", "MB", "streams", "prefetch", "GB/s median",
              "GB/s best");
  for (const int n : {64, 128, 256}) {
    for (const int bytes : {2, 4, 8}) {
      const double footprint = 2.0 * 19 * bytes * n * n * n;
      for (const int streams : {1, 2, 4, 8, 19}) {
        const long lines = static_cast<long>(footprint / (2.0 * streams * line * sizeof(float)));
        const std::size_t array_bytes = (lines * line * sizeof(float) + 4095) / 4096 * 4096;  // whole pages
        std::vector<float*> src(streams), dst(streams);
        for (int s = 0; s < streams; ++s) {
          src[s] = static_cast<float*>(std::aligned_alloc(4096, array_bytes));
          dst[s] = static_cast<float*>(std::aligned_alloc(4096, array_bytes));
          if (!src[s] || !dst[s]) {
            std::fprintf(stderr, "stream_count: out of memory at n = %d\n", n);
            return 1;
          }
        }
        // First touch by the threads that copy them.
#pragma omp parallel for schedule(static)
        for (long l = 0; l < lines; ++l)
          for (int s = 0; s < streams; ++s) {
            std::memset(src[s] + l * line, 1, line * sizeof(float));
            std::memset(dst[s] + l * line, 0, line * sizeof(float));
          }
        for (const bool ahead : {false, true}) {
          const auto copy = ahead ? copy_runs<true> : copy_runs<false>;
          copy(src.data(), dst.data(), streams, lines);
          std::vector<double> rates;
          for (int r = 0; r < repeats; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            copy(src.data(), dst.data(), streams, lines);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            rates.push_back(2.0 * streams * lines * line * sizeof(float) / seconds / 1e9);
          }
          std::sort(rates.begin(), rates.end());
          std::printf("%-6d %-10s %-8.0f %-8d %-9s %-12.1f %-10.1f\n", n,
                      bytes == 2   ? "fp16"
                      : bytes == 4 ? "fp32"
                                   : "fp64",
                      footprint / 1e6, streams, ahead ? "512 B" : "none", rates[rates.size() / 2], rates.back());
        }
        for (int s = 0; s < streams; ++s) {
          std::free(src[s]);
          std::free(dst[s]);
        }
      }
    }
  }
  return 0;
}
