#pragma once
// The D3Q19 lattice: 19 discrete velocities, their weights and opposites. Usable on host
// and device; directions are visited at compile time so that every table lookup folds
// into a constant inside kernels.
#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

namespace pk::lbm {

struct D3Q19 {
  static constexpr int size = 19;
  // Direction 0 is the rest particle; 1..6 the axis neighbours; 7..18 the edge diagonals.
  // Opposite directions are neighbours in this list (1<->2, 3<->4, ...), so opposite(q) is
  // arithmetic, not a table.
  KOKKOS_INLINE_FUNCTION static constexpr int cx(int q) {
    constexpr int c[size] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
    return c[q];
  }
  KOKKOS_INLINE_FUNCTION static constexpr int cy(int q) {
    constexpr int c[size] = {0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1};
    return c[q];
  }
  KOKKOS_INLINE_FUNCTION static constexpr int cz(int q) {
    constexpr int c[size] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1};
    return c[q];
  }
  // Component `axis` (0, 1, 2) of velocity q.
  KOKKOS_INLINE_FUNCTION static constexpr int c(int q, int axis) {
    return axis == 0 ? cx(q) : (axis == 1 ? cy(q) : cz(q));
  }
  KOKKOS_INLINE_FUNCTION static constexpr int opposite(int q) { return q == 0 ? 0 : (q % 2 == 1 ? q + 1 : q - 1); }
  KOKKOS_INLINE_FUNCTION static constexpr double weight(int q) {
    return q == 0 ? 1.0 / 3.0 : (q <= 6 ? 1.0 / 18.0 : 1.0 / 36.0);
  }
  // Lattice speed of sound squared, c_s^2 = 1/3 (lattice units).
  static constexpr double cs2 = 1.0 / 3.0;
};

namespace Details {
template <class F, int... Q>
KOKKOS_FORCEINLINE_FUNCTION void for_each_direction_impl(F&& f, std::integer_sequence<int, Q...>) {
  (f(std::integral_constant<int, Q>{}), ...);
}
}  // namespace Details

// Calls f(std::integral_constant<int, q>{}) for q = 0..18, so that `decltype(q)::value`
// is a constant expression inside f.
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_direction(F&& f) {
  Details::for_each_direction_impl(f, std::make_integer_sequence<int, D3Q19::size>{});
}

}  // namespace pk::lbm
