#pragma once
// The physics of one cell, whatever the storage and traversal: moments, the equilibrium,
// the BGK collision and the pressure boundary rule, on shifted populations g_q = f_q - w_q.
#include <pk/core/multiply_add.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

namespace pk::lbm::Details {

// Density excess (rho - 1) and velocity of shifted populations g.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void moments(const Real (&g)[D3Q19::size], Real& density_excess, Real (&u)[3]) {
  Real s = 0, jx = 0, jy = 0, jz = 0;
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    s += g[q];
    if constexpr (D3Q19::cx(q) != 0) jx += D3Q19::cx(q) * g[q];
    if constexpr (D3Q19::cy(q) != 0) jy += D3Q19::cy(q) * g[q];
    if constexpr (D3Q19::cz(q) != 0) jz += D3Q19::cz(q) * g[q];
  });
  const Real inverse_density = Real(1) / (Real(1) + s);
  density_excess = s;
  u[0] = jx * inverse_density;
  u[1] = jy * inverse_density;
  u[2] = jz * inverse_density;
}

// moments() with opposite directions taken in pairs (q odd, q + 1): their sum counts towards
// the density, their difference towards the momentum, which halves the momentum's additions.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void moments_paired(const Real (&g)[D3Q19::size], Real& density_excess, Real (&u)[3]) {
  Real s = g[0], jx = 0, jy = 0, jz = 0;
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    if constexpr (q % 2 == 1) {
      s += g[q] + g[q + 1];
      const Real d = g[q] - g[q + 1];
      if constexpr (D3Q19::cx(q) != 0) jx += D3Q19::cx(q) * d;
      if constexpr (D3Q19::cy(q) != 0) jy += D3Q19::cy(q) * d;
      if constexpr (D3Q19::cz(q) != 0) jz += D3Q19::cz(q) * d;
    }
  });
  const Real inverse_density = Real(1) / (Real(1) + s);
  density_excess = s;
  u[0] = jx * inverse_density;
  u[1] = jy * inverse_density;
  u[2] = jz * inverse_density;
}

// Shifted equilibrium g_q^eq = f_q^eq - w_q for density 1 + density_excess and velocity u:
// f^eq_q = w_q rho (1 + 3 c.u + 9/2 (c.u)^2 - 3/2 u^2).
template <class Real, int q>
KOKKOS_FORCEINLINE_FUNCTION Real shifted_equilibrium(Real density_excess, const Real (&u)[3], Real three_halves_u2) {
  const Real w = static_cast<Real>(D3Q19::weight(q));
  Real cu = 0;
  if constexpr (D3Q19::cx(q) != 0) cu += D3Q19::cx(q) * u[0];
  if constexpr (D3Q19::cy(q) != 0) cu += D3Q19::cy(q) * u[1];
  if constexpr (D3Q19::cz(q) != 0) cu += D3Q19::cz(q) * u[2];
  cu *= Real(3);
  return w * (density_excess + (Real(1) + density_excess) * (cu + Real(0.5) * cu * cu - three_halves_u2));
}

// BGK: g_q <- g_q + omega (g_q^eq - g_q), omega = 1 / tau. Conserves mass and momentum.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide_bgk(Real (&g)[D3Q19::size], Real omega) {
  Real density_excess, u[3];
  moments(g, density_excess, u);
  const Real three_halves_u2 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    g[q] += omega * (shifted_equilibrium<Real, q>(density_excess, u, three_halves_u2) - g[q]);
  });
}

// c_q . v, from the first nonzero component of c_q on: a sum started at zero would keep its
// first addition (0 + x is not x for x = -0, so the compiler may not drop it).
template <int q, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real c_dot(const Real (&v)[3]) {
  constexpr int c[3] = {D3Q19::cx(q), D3Q19::cy(q), D3Q19::cz(q)};
  constexpr int first = c[0] != 0 ? 0 : c[1] != 0 ? 1 : 2;
  Real sum = c[first] * v[first];
  if constexpr (first < 1 && c[1] != 0) sum += c[1] * v[1];
  if constexpr (first < 2 && c[2] != 0) sum += c[2] * v[2];
  return sum;
}

// collide_bgk() with the equilibria of opposite directions q, q + 1 formed together: they
// share their terms even in c.u and differ in the sign of the odd one, and each weight's
// coefficients are formed once per cell, with a fused multiply-add wherever a product meets a
// sum (pk::multiply_add, on hosts that have one): about 125 operations a cell where
// collide_bgk() takes about 250. The rows traversal's form (SIMD lanes of cells, bound by
// arithmetic on CPUs); the per-cell kernels keep collide_bgk(), with which the GPU's fp16 A-A
// step runs faster (docs/lbm.md).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void collide_bgk_paired(Real (&g)[D3Q19::size], Real omega) {
  Real density_excess, u[3];
  moments_paired(g, density_excess, u);
  const Real density = Real(1) + density_excess;
  const Real three_halves_u2 = Real(1.5) * multiply_add(u[0], u[0], multiply_add(u[1], u[1], u[2] * u[2]));
  const Real u3[3] = {Real(3) * u[0], Real(3) * u[1], Real(3) * u[2]};  // c.u3 = 3 c.u
  const Real keep = Real(1) - omega;
  // omega g^eq_q = w_q (constant + linear (c.u3) + quadratic (c.u3)^2), per weight w_q
  const Real constant = omega * multiply_add(-density, three_halves_u2, density_excess);
  const Real linear = omega * density;
  const Real quadratic = Real(0.5) * linear;
  g[0] = multiply_add(keep, g[0], static_cast<Real>(D3Q19::weight(0)) * constant);
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    if constexpr (q % 2 == 1) {
      const Real w = static_cast<Real>(D3Q19::weight(q));
      const Real cu = c_dot<q>(u3);
      const Real even = multiply_add(w * quadratic, cu * cu, w * constant);
      const Real odd = (w * linear) * cu;
      g[q] = multiply_add(keep, g[q], even + odd);
      g[q + 1] = multiply_add(keep, g[q + 1], even - odd);
    }
  });
}

// Pressure boundary (Zou & He; Hecht & Harting's D3Q19 form) on a cell with inward normal n:
// the populations coming from outside (c.n = +1) are unknown. With the density fixed and
// the tangential velocity zero, mass fixes u_n and bounce-back of the non-equilibrium part,
// corrected for tangential momentum, fixes the unknowns:
//   rho u_n = rho - (S_0 + 2 S_-),   f_q = f_-q + 6 w_q rho u_n - (c_q . T) / 2,
// with S_0, S_- the sums over c.n = 0 and c.n = -1 and T = sum_{c.n=0} c f.
// In shifted storage S_0 + 2 S_- gains exactly 1 (the weights' share), hence `- 1` below.
template <class Real>
KOKKOS_INLINE_FUNCTION void pressure_boundary(Real (&g)[D3Q19::size], int n0, int n1, int n2, Real density_excess) {
  Real along = 0, against = 0, t0 = 0, t1 = 0, t2 = 0;
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const int cn = D3Q19::cx(q) * n0 + D3Q19::cy(q) * n1 + D3Q19::cz(q) * n2;
    if (cn == 0) {
      along += g[q];
      t0 += D3Q19::cx(q) * g[q];
      t1 += D3Q19::cy(q) * g[q];
      t2 += D3Q19::cz(q) * g[q];
    } else if (cn < 0) {
      against += g[q];
    }
  });
  const Real rho_un = density_excess - (along + Real(2) * against);
  for_each_direction([&](auto qc) {
    constexpr int q = decltype(qc)::value;
    const int cn = D3Q19::cx(q) * n0 + D3Q19::cy(q) * n1 + D3Q19::cz(q) * n2;
    if (cn > 0) {
      const Real ct = D3Q19::cx(q) * t0 + D3Q19::cy(q) * t1 + D3Q19::cz(q) * t2;
      g[q] = g[D3Q19::opposite(q)] + Real(6 * D3Q19::weight(q)) * rho_un - Real(0.5) * ct;
    }
  });
}

}  // namespace pk::lbm::Details
