#pragma once
// Long lines split into overlapping chunks (Algorithm 2, the paper's domain decomposition
// with overlap m) so that one line keeps many threads busy. Each chunk filters its own
// d(+1) entries plus up to m on each side (none beyond the line's ends, where the filter's
// own end conditions apply, as in apply_filter) and keeps its own. The result differs from
// apply_filter near the seams between chunks, by less the larger m (the tests and pk-bench
// measure by how much).
#include <pk/core/checks.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/line_recurrence.hpp>
#include <pk/rfilter/details/lines.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace pk::rfilter {

struct Chunking {
  int chunks = 1;   // t: chunks per line
  int overlap = 0;  // m: entries borrowed from each neighbour (the paper: m = 2.5 sigma)
};

// The paper's overlap m = 2.5 sigma, rounded up.
inline int default_overlap(double sigma) { return static_cast<int>(std::ceil(2.5 * sigma)); }

// Throws pk::Error unless 1 <= chunks <= n and 0 <= overlap <= the shortest chunk (n / chunks).
inline void check_chunking(const Chunking& ch, long n) {
  require(ch.chunks >= 1, "chunked filter: the number of chunks must be >= 1 (got " + std::to_string(ch.chunks) + ")");
  require(ch.chunks <= n, "chunked filter: " + std::to_string(ch.chunks) + " chunks for a line of " +
                              std::to_string(n) + " entries; at most one chunk per entry");
  require(ch.overlap >= 0, "chunked filter: the overlap must be >= 0 (got " + std::to_string(ch.overlap) + ")");
  const long shortest = n / ch.chunks;
  require(ch.overlap <= shortest, "chunked filter: overlap " + std::to_string(ch.overlap) +
                                      " is larger than a chunk (" + std::to_string(shortest) + " entries for " +
                                      std::to_string(ch.chunks) + " chunks of a line of " + std::to_string(n) + ")");
}

// As many chunks as the space runs threads at once, but none shorter than 2m, so that the
// overlap at most doubles the work.
template <class ExecutionSpace>
Chunking default_chunking(const ExecutionSpace& space, long n, long lines, double sigma) {
  const int m = default_overlap(sigma);
  const long wanted = (space.concurrency() + lines - 1) / lines;
  const long longest_useful = n / (2L * (m > 0 ? m : 1));
  long t = wanted < longest_useful ? wanted : longest_useful;
  if (t < 1) t = 1;
  return {static_cast<int>(t), t > 1 ? m : 0};
}

// Private blocks of the chunks, one row per (line, chunk). The space's natural layout puts,
// on a GPU, the same entry of consecutive blocks side by side (coalesced), on a CPU each
// block contiguous. Keep one between calls to avoid an allocation per call.
template <class ExecutionSpace>
using ChunkWorkspace =
    Kokkos::View<double**, typename ExecutionSpace::array_layout, typename ExecutionSpace::memory_space>;

// output = the chunked filter of input along `axis` (same extents; input is not changed).
// `blocks` is resized when it does not fit.
template <class ExecutionSpace, class InView, class OutView>
void apply_filter_chunked(const ExecutionSpace& space, const InView& input, const OutView& output, int axis,
                          const Coefficients& c, const Chunking& chunking, ChunkWorkspace<ExecutionSpace>& blocks) {
  static_assert(check_arguments<ExecutionSpace, InView, OutView>());
  static_assert(static_cast<int>(InView::rank) == static_cast<int>(OutView::rank),
                "pk::rfilter::apply_filter_chunked: input and output must have the same rank");
  static_assert(std::is_same_v<typename InView::array_layout, typename OutView::array_layout>,
                "pk::rfilter::apply_filter_chunked: input and output must have the same layout");
  require(axis >= 0 && axis < static_cast<int>(InView::rank), "chunked filter: axis " + std::to_string(axis) +
                                                                  " does not exist in a rank-" +
                                                                  std::to_string(InView::rank) + " field");
  for (int d = 0; d < static_cast<int>(InView::rank); ++d)
    require(input.extent(d) == output.extent(d), "chunked filter: input and output extents differ in dimension " +
                                                     std::to_string(d) + " (" + std::to_string(input.extent(d)) +
                                                     " vs " + std::to_string(output.extent(d)) + ")");
  require(input.data() != output.data(), "chunked filter: input and output must be different views");
  require(c.iterations >= 1 && c.alpha > 0 && c.alpha < 1,
          "chunked filter: coefficients not set (use make_coefficients)");
  const auto in3 = Details::as_rank3(input);
  const auto out3 = Details::as_rank3(output);
  const auto g = Details::line_geometry(in3, axis);
  if (g.lines == 0 || g.length == 0) return;
  check_chunking(chunking, g.length);

  const int n = g.length, t = chunking.chunks, m = chunking.overlap;
  const int d = n / t, r = n % t;  // eq. (10)
  const int block = d + 1 + 2 * m;
  const long items = g.lines * t;
  if (static_cast<long>(blocks.extent(0)) != items || static_cast<int>(blocks.extent(1)) != block)
    blocks = ChunkWorkspace<ExecutionSpace>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::rfilter::chunk_blocks"), items, block);
  const ChunkWorkspace<ExecutionSpace> work = blocks;
  const double alpha = c.alpha, beta = c.beta;
  const int iterations = c.iterations;
  Kokkos::parallel_for(
      "pk::rfilter::filter_chunks", Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<long>>(space, 0, items),
      KOKKOS_LAMBDA(const long item) {
        const long q = item / t;
        const int chunk = static_cast<int>(item % t);
        const int own = d + (chunk < r ? 1 : 0);
        const int begin = chunk * d + (chunk < r ? chunk : r);  // eq. (11)
        const int first = begin - m > 0 ? begin - m : 0;
        const int last = begin + own + m < n ? begin + own + m : n;
        int i[3];
        g.index(q, 0, i);
        for (int k = 0; k < last - first; ++k) {
          i[g.axis] = first + k;
          work(item, k) = in3(i[0], i[1], i[2]);
        }
        auto line = [&](int k) -> double& { return work(item, k); };
        Details::filter_line(line, last - first, alpha, beta, iterations);
        for (int j = begin; j < begin + own; ++j) {
          i[g.axis] = j;
          out3(i[0], i[1], i[2]) = work(item, j - first);
        }
      });
}

// As above, with a workspace of its own.
template <class ExecutionSpace, class InView, class OutView>
void apply_filter_chunked(const ExecutionSpace& space, const InView& input, const OutView& output, int axis,
                          const Coefficients& c, const Chunking& chunking) {
  ChunkWorkspace<ExecutionSpace> blocks;
  apply_filter_chunked(space, input, output, axis, c, chunking, blocks);
}

}  // namespace pk::rfilter
