#pragma once
// Per-cell kernels that set or read the state of a lattice in any layout and storage:
// initial equilibrium, moments, post-collision copies, the health check and the summary.
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/physics.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/lattice.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace pk::lbm::Details {

// Min-reduces to the index of the first cell with a NaN, a density <= 0 or too high a Mach number.
template <class ExecutionSpace, class Storage>
struct FirstUnhealthyCell {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;
  Real max_u2;  // (max_mach * c_s)^2

  KOKKOS_INLINE_FUNCTION void operator()(const int cell, int& first) const {
    if (cell >= first || grid.type(cell) == solid_flag) return;
    Real g[D3Q19::size], density_excess, u[3];
    post_collision(f, grid, layout, shifted, cell, g);
    moments(g, density_excess, u);
    const Real u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    // NaN compares false with everything, so !(a <= b) also catches it.
    const bool bad = !(density_excess > Real(-1)) || !(u2 <= max_u2);
    if (bad) first = cell;
  }
};

template <class ExecutionSpace, class Storage>
struct Moments {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;
  // (cell - first, 0: rho, 1..3: u): the cells from `first` on, a chunk at a time.
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> density_velocity;
  int first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    const int row = cell - first;
    if (grid.type(cell) == solid_flag) {
      for (int k = 0; k < 4; ++k) density_velocity(row, k) = 0;
      return;
    }
    Real g[D3Q19::size], density_excess, u[3];
    post_collision(f, grid, layout, shifted, cell, g);
    moments(g, density_excess, u);
    density_velocity(row, 0) = 1.0 + static_cast<double>(density_excess);
    for (int k = 0; k < 3; ++k) density_velocity(row, k + 1) = u[k];
  }
};

// Reduces the moments of the non-solid cells: the sum of their densities (`speed` false) or
// the largest |u| (`speed` true), where a NaN speed counts as infinite so that the maximum
// keeps it (a plain max drops NaN).
template <class ExecutionSpace, class Storage, bool speed>
struct SummaryReduction {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell, double& value) const {
    if (grid.type(cell) == solid_flag) return;
    Real g[D3Q19::size], density_excess, u[3];
    post_collision(f, grid, layout, shifted, cell, g);
    moments(g, density_excess, u);
    if constexpr (!speed) {
      value += 1.0 + static_cast<double>(density_excess);
    } else {
      const double ux = u[0], uy = u[1], uz = u[2];
      double s = ::sqrt(ux * ux + uy * uy + uz * uz);
      if (s != s) s = INFINITY;
      if (s > value) value = s;
    }
  }
};

template <class ExecutionSpace, class Storage>
struct PostCollisionCopy {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> out;  // (cell, q): f*_q, 0 in solids

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    Real g[D3Q19::size];
    const bool solid = grid.type(cell) == solid_flag;
    if (!solid) post_collision(f, grid, layout, shifted, cell, g);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      out(cell, q) = solid ? 0.0 : static_cast<double>(g[q]) + D3Q19::weight(q);
    });
  }
};

// Writes the equilibrium of the density and velocity that `state` gives each cell as the
// post-collision populations of step 0, in the layout the first step expects. A state is
// a device-callable functor:
//   void operator()(int cell, int x, int y, int z, double& density, double (&velocity)[3]) const;
template <class ExecutionSpace, class Storage, class State>
struct Initialize {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;
  State state;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    if (grid.type(cell) == solid_flag) return;
    int x, y, z;
    grid.coordinates(cell, x, y, z);
    const std::uint32_t w = grid.walls(cell);
    double density, velocity[3];
    state(cell, x, y, z, density, velocity);
    const Real density_excess = static_cast<Real>(density - 1.0);
    const Real u[3] = {static_cast<Real>(velocity[0]), static_cast<Real>(velocity[1]), static_cast<Real>(velocity[2])};
    const Real three_halves_u2 = Real(1.5) * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for_each_direction([&](auto qc) {
      constexpr int q = decltype(qc)::value;
      const Storage g = static_cast<Storage>(shifted_equilibrium<Real, q>(density_excess, u, three_halves_u2));
      const int to = grid.template neighbour<q>(cell, w);
      if (layout == Layout::home)
        slot(f, cell, q, shifted) = g;
      else if (to >= 0)
        slot(f, to, q, shifted) = g;
      else
        slot(f, cell, D3Q19::opposite(q), shifted) = g;
    });
  }
};

// State from per-cell fields (cell, 0: density, 1..3: velocity).
template <class MemorySpace>
struct FieldState {
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> density_velocity;

  KOKKOS_INLINE_FUNCTION void operator()(int cell, int, int, int, double& density, double (&velocity)[3]) const {
    density = density_velocity(cell, 0);
    for (int k = 0; k < 3; ++k) velocity[k] = density_velocity(cell, k + 1);
  }
};

// The starting state of the parameters: inlet and outlet cells at their prescribed
// density, the others at the initial density, all at the initial velocity.
template <class MemorySpace>
struct ParameterState {
  Kokkos::View<std::uint8_t*, MemorySpace> cell_type;
  double inlet_density, outlet_density, initial_density, initial_velocity[3];

  KOKKOS_INLINE_FUNCTION void operator()(int cell, int, int, int, double& density, double (&velocity)[3]) const {
    const std::uint8_t type = Grid<MemorySpace>::type_of(cell_type(cell));
    density = type == inlet_flag                                    ? inlet_density
              : type == static_cast<std::uint8_t>(CellType::outlet) ? outlet_density
                                                                    : initial_density;
    for (int k = 0; k < 3; ++k) velocity[k] = initial_velocity[k];
  }
};

}  // namespace pk::lbm::Details
