#pragma once
// A sparse grid's cells copied to the host and decoded: what pk::gbees::Solver::cells()
// returns at snapshots, for grids of up to hundreds of millions of cells.
#include <pk/core/spaces.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/grid.hpp>
#include <pk/gbees/host_cells.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace pk::gbees::Details {

// The PDF and the per-axis indices of cells first .. first + count - 1 of `key`, into
// member[c] and index[c * n + d] (memory `space` can write), on `space`.
template <class ExecutionSpace, class Keys>
void decode_cells(const ExecutionSpace& space, const Keys& key, const KeyCodec& codec, int n, std::int32_t first,
                  std::int32_t count, int* member, std::int64_t* index) {
  Kokkos::parallel_for(
      "pk::gbees::cells", Kokkos::RangePolicy<ExecutionSpace>(space, 0, count), KOKKOS_LAMBDA(const int c) {
        member[c] = codec.member(key(first + c));
        for (int d = 0; d < n; ++d) index[static_cast<std::size_t>(c) * n + d] = codec.index(key(first + c), d);
      });
}

// The cells of `grid` on the host at `time`: keys, indices, probabilities, the PDF each
// belongs to; with `owned_only`, those `geometry`'s slab owns (not a distributed grid's ghosts).
template <class ExecutionSpace>
HostCells host_cells(const ExecutionSpace& space, const SparseGrid<ExecutionSpace>& grid, const Geometry& geometry,
                     double time, bool owned_only) {
  using memory_space = typename ExecutionSpace::memory_space;
  const std::int32_t m = grid.count();
  const int n = geometry.n;
  HostCells out;
  out.n = n;
  out.time = time;
  out.cell_width.assign(geometry.h, geometry.h + n);
  out.origin.assign(geometry.mean, geometry.mean + n);
  out.key.resize(m);
  out.probability.resize(m);
  out.index.resize(static_cast<std::size_t>(m) * n);
  out.member.resize(m);
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  Kokkos::deep_copy(space, Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Unmanaged>(out.key.data(), m),
                    Kokkos::subview(grid.key(), std::make_pair(0, m)));
  Kokkos::deep_copy(space, Kokkos::View<double*, Kokkos::HostSpace, Unmanaged>(out.probability.data(), m),
                    Kokkos::subview(grid.probability(), std::make_pair(0, m)));
  // Decoded on the solver's instance: on host spaces into the vectors themselves, elsewhere a
  // chunk at a time into buffers then copied (grids of hundreds of millions of cells are
  // decoded at snapshots, and a chunk's buffers stay small beside the grid).
  if constexpr (runs_on_host<ExecutionSpace>) {
    decode_cells(space, grid.key(), geometry.codec, n, 0, m, out.member.data(), out.index.data());
  } else {
    const std::int32_t chunk = std::min<std::int32_t>(m, 1 << 19);
    Kokkos::View<int*, memory_space> member(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::gbees::member"),
                                            chunk);
    Kokkos::View<std::int64_t*, memory_space> index(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::gbees::index"),
        static_cast<std::size_t>(chunk) * n);
    for (std::int32_t first = 0; first < m; first += chunk) {
      const std::int32_t count = std::min(chunk, m - first);
      decode_cells(space, grid.key(), geometry.codec, n, first, count, member.data(), index.data());
      Kokkos::deep_copy(space, Kokkos::View<int*, Kokkos::HostSpace, Unmanaged>(out.member.data() + first, count),
                        Kokkos::subview(member, std::make_pair(0, count)));
      const std::size_t entries = static_cast<std::size_t>(count) * n;
      Kokkos::deep_copy(space,
                        Kokkos::View<std::int64_t*, Kokkos::HostSpace, Unmanaged>(
                            out.index.data() + static_cast<std::size_t>(first) * n, entries),
                        Kokkos::subview(index, std::make_pair(std::size_t{0}, entries)));
    }
  }
  space.fence();
  if (owned_only) {  // not the ghosts
    std::size_t kept = 0;
    for (std::size_t c = 0; c < out.key.size(); ++c)
      if (geometry.owns(out.key[c])) {
        out.key[kept] = out.key[c];
        out.probability[kept] = out.probability[c];
        out.member[kept] = out.member[c];
        std::copy_n(out.index.begin() + static_cast<std::ptrdiff_t>(c * n), n,
                    out.index.begin() + static_cast<std::ptrdiff_t>(kept * n));
        ++kept;
      }
    out.key.resize(kept);
    out.probability.resize(kept);
    out.member.resize(kept);
    out.index.resize(kept * n);
  }
  return out;
}

}  // namespace pk::gbees::Details
