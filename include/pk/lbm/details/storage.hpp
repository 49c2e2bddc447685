#pragma once
// How distributions are stored. Structure-of-arrays, View<Storage**, LayoutLeft>: for each
// direction q the cells are contiguous, x fastest, so consecutive GPU threads (and
// consecutive iterations of a CPU thread) touch consecutive addresses for every q: loads
// and stores coalesce / stream. slot() gives the element of (cell, q). Each value is
// stored shifted by its rest-state equilibrium, g_q = f_q - w_q (rho_0 = 1): the stored
// numbers are small, so fp32 keeps the digits that carry the flow instead of spending
// them on the constant w_q. Storage is float, double, a 16-bit half type (fp16 storage) or
// pk::Compact16 (fp16c: one more mantissa bit, |g| < 2): kernels convert on load and store
// and compute in arithmetic_t<Storage>.
//
// Layouts of the A-A lattice A (f*_q(x) = post-collision population of cell x, direction q):
//   after an odd number of steps ("swapped"):  A(x, opposite(q)) = f*_q(x)
//   after an even number of steps ("streamed"): A(x + c_q, q) = f*_q(x), or A(x, opposite(q))
//     when x + c_q is a wall (the bounced population waits at home).
// Even steps (paper's A-A:1) read incoming populations at home and write them back swapped;
// odd steps (A-A:2) gather from the neighbours' swapped slots and scatter to the neighbours.
// Each cell reads and writes the same set of slots, so cells may run in any order in place.
#include <pk/core/binary16.hpp>
#include <pk/core/compact16.hpp>
#include <pk/core/spaces.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace pk::lbm::Details {

// The type kernels compute in for a storage type: fp16 lattices compute in fp32.
template <class Storage>
using arithmetic_t = std::conditional_t<std::is_same_v<Storage, double>, double, float>;

template <class Storage, class MemorySpace>
using Lattice = Kokkos::View<Storage**, Kokkos::LayoutLeft, MemorySpace>;

// Where post-collision populations currently are.
enum class Layout { home, swapped, streamed };  // A-B: home; A-A: swapped or streamed

// Shifted lattices keep `margin` elements (128 bytes in fp32) before and after the cells,
// so that they stay in bounds and aligned.
constexpr int margin = 32;

// Slot of direction q of `cell` in lattice f. Shifted storage keeps it c_x(q) elements
// earlier: the odd step, which reaches direction q of the neighbour at x + c_x(q), then
// reads and writes whole 128-byte lines per warp, where plain storage has 10 of 19
// directions one element off. The even step takes the offsets instead and stages them
// through scratch (StagedCollide). Plain storage is shifted == false.
template <class View>
KOKKOS_FORCEINLINE_FUNCTION auto& slot(const View& f, int cell, int q, bool shifted) {
  return f(shifted ? cell + margin - D3Q19::cx(q) : cell, q);
}

// The storage type of a lattice of the given precision on a space: float, double and
// pk::Compact16 as they are; pk::Binary16 (fp16 storage) as itself on host spaces and as the device's own
// half type where Kokkos has one (CUDA's __half: the same bits, converted by one
// instruction each way where Binary16 takes a dozen).
template <class Precision, class ExecutionSpace>
using storage_t = std::conditional_t<std::is_same_v<Precision, Binary16> && !runs_on_host<ExecutionSpace> &&
                                         sizeof(Kokkos::Experimental::half_t) == sizeof(Binary16),
                                     Kokkos::Experimental::half_t, Precision>;

// Post-collision populations f*_q(cell) - w_q of a non-solid cell, whatever the layout.
template <class MemorySpace, class Storage, class Real>
KOKKOS_INLINE_FUNCTION void post_collision(const Lattice<Storage, MemorySpace>& f, const Grid<MemorySpace>& grid,
                                           Layout layout, bool shifted, int cell, Real (&g)[D3Q19::size]) {
  const auto value = [&](int at, int q) { return static_cast<Real>(slot(f, at, q, shifted)); };
  if (layout == Layout::streamed) {
    const std::uint32_t w = grid.walls(cell);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const int to = grid.template neighbour<q>(cell, w);
      g[q] = to >= 0 ? value(to, q) : value(cell, D3Q19::opposite(q));
    });
  } else {
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      g[q] = layout == Layout::home ? value(cell, q) : value(cell, D3Q19::opposite(q));
    });
  }
}

}  // namespace pk::lbm::Details
