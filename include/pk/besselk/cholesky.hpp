#pragma once
// Tiled right-looking Cholesky factorisation A = L L^T (lower triangle, in place) on Kokkos
// Kernels: per tile column, a small team kernel factors the diagonal tile, one trsm solves
// the panel below it, and gemm updates each trailing tile column's lower part (cuBLAS / host
// BLAS through the TPLs, on the caller's instance: pk/core/blas.hpp).
#include <pk/core/blas.hpp>
#include <pk/core/error.hpp>
#include <pk/core/host_copies.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>

namespace pk::besselk {

constexpr int default_tile_size = 512;  // outer tiles: large enough for gemm to run at speed

namespace Details {

constexpr long diagonal_tile_size = 64;  // what the single-team kernel factors

// Factors the nb x nb tile `a` in place (lower triangle) with one team: column by column,
// scale below the pivot, then the rank-1 update of the trailing triangle. A pivot that is
// not > 0 (or NaN) records its global column in `failed` (atomic min) and stops the tile.
template <class ExecutionSpace, class Tile, class Flag>
void factor_diagonal_tile(const ExecutionSpace& space, const Tile& a, long offset, const Flag& failed) {
  const int nb = static_cast<int>(a.extent(0));
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Member = typename Policy::member_type;
  Kokkos::parallel_for(
      "pk::matern::cholesky::diagonal_tile", Policy(space, 1, Kokkos::AUTO), KOKKOS_LAMBDA(const Member& m) {
        for (int j = 0; j < nb; ++j) {
          const double pivot = a(j, j);
          if (!(pivot > 0)) {  // NaN too
            Kokkos::single(Kokkos::PerTeam(m),
                           [&] { Kokkos::atomic_fetch_min(&failed(), static_cast<int>(offset + j)); });
            return;
          }
          const double d = ::sqrt(pivot);
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, j + 1, nb), [&](int i) { a(i, j) /= d; });
          Kokkos::single(Kokkos::PerTeam(m), [&] { a(j, j) = d; });
          m.team_barrier();
          // Trailing triangle, one row i per thread (neighbouring threads touch neighbouring
          // entries of a LayoutLeft column): a(i, c) -= a(i, j) a(c, j) for c <= i.
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, j + 1, nb), [&](int i) {
            const double aij = a(i, j);
            for (int c = j + 1; c <= i; ++c) a(i, c) -= aij * a(c, j);
          });
          m.team_barrier();
        }
      });
}

// Right-looking blocked Cholesky of `a` in tiles of `tile`: each diagonal tile is factored
// by the same routine in tiles of diagonal_tile_size (so the team kernel only ever sees a
// small tile that stays in cache), the panel by one trsm, the trailing lower part by one
// gemm per tile column.
template <class ExecutionSpace, class Matrix, class Flag>
void cholesky_blocked(const ExecutionSpace& space, const Matrix& a, long tile, long offset, const Flag& failed) {
  const long n = static_cast<long>(a.extent(0));
  for (long k = 0; k < n; k += tile) {
    const long kb = std::min<long>(tile, n - k), rest = n - k - kb;
    const auto diagonal = Kokkos::subview(a, std::make_pair(k, k + kb), std::make_pair(k, k + kb));
    if (kb > diagonal_tile_size)
      cholesky_blocked(space, diagonal, diagonal_tile_size, offset + k, failed);
    else
      factor_diagonal_tile(space, diagonal, offset + k, failed);
    if (rest == 0) break;
    const auto panel = Kokkos::subview(a, std::make_pair(k + kb, n), std::make_pair(k, k + kb));
    blas::trsm(space, "R", "L", "T", "N", 1.0, diagonal, panel);  // panel = panel L_kk^-T
    for (long j = k + kb; j < n; j += tile) {
      const long jb = std::min<long>(tile, n - j);
      // Tile column j, rows j..n: a(j:, j:j+jb) -= panel(j:, :) panel(j:j+jb, :)^T.
      const auto rows = Kokkos::subview(a, std::make_pair(j, n), std::make_pair(k, k + kb));
      const auto cols = Kokkos::subview(a, std::make_pair(j, j + jb), std::make_pair(k, k + kb));
      const auto target = Kokkos::subview(a, std::make_pair(j, n), std::make_pair(j, j + jb));
      blas::gemm(space, "N", "T", -1.0, rows, cols, 1.0, target);
    }
  }
}

}  // namespace Details

// Factors the symmetric positive definite n x n matrix `a` (only its lower triangle is
// read) into L, in place; the strict upper triangle is left as it was. Throws pk::Error
// when a pivot is not positive: the matrix is not (numerically) positive definite.
template <class ExecutionSpace, class Matrix>
void cholesky_in_place(const ExecutionSpace& space, const Matrix& a, int tile = default_tile_size) {
  const long n = static_cast<long>(a.extent(0));
  require(a.extent(1) == a.extent(0), "cholesky: the matrix must be square");
  require(n < (1L << 31), "cholesky: n must be < 2^31");
  require(tile >= 1, "cholesky: tile size must be >= 1");
  Kokkos::View<int, typename ExecutionSpace::memory_space> failed(
      Kokkos::view_alloc(space, "pk::matern::cholesky::failed"));
  Kokkos::deep_copy(space, failed, static_cast<int>(n));
  Details::cholesky_blocked(space, a, tile, 0, failed);
  const int first_failed = read_scalar(space, failed);
  require(first_failed == n, "covariance matrix is not positive definite: pivot " + std::to_string(first_failed) +
                                 " of " + std::to_string(n) +
                                 " is not > 0 (duplicate or near-duplicate locations, or parameters that make "
                                 "the matrix numerically singular)");
}

}  // namespace pk::besselk
