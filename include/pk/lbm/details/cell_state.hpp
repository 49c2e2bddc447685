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

// A lattice as the per-cell kernels below read it: its populations in their layout and
// storage, and the grid.
template <class ExecutionSpace, class Storage>
struct LatticeCells {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using Real = arithmetic_t<Storage>;
  Lattice<Storage, MemorySpace> f;
  Grid<MemorySpace> grid;
  Layout layout;
  bool shifted;

  KOKKOS_INLINE_FUNCTION bool solid(int cell) const { return grid.type(cell) == solid_flag; }
  // The post-collision populations of the last step in a non-solid cell.
  KOKKOS_INLINE_FUNCTION void post_collision_of(int cell, Real (&g)[D3Q19::size]) const {
    post_collision(f, grid, layout, shifted, cell, g);
  }
  // Their density excess and velocity.
  KOKKOS_INLINE_FUNCTION void moments_of(int cell, Real& density_excess, Real (&u)[3]) const {
    Real g[D3Q19::size];
    post_collision_of(cell, g);
    moments(g, density_excess, u);
  }
};

// Min-reduces to the index of the first cell with a NaN, a density <= 0 or too high a Mach number.
template <class ExecutionSpace, class Storage>
struct FirstUnhealthyCell {
  using Real = arithmetic_t<Storage>;
  LatticeCells<ExecutionSpace, Storage> lattice;
  Real max_u2;  // (max_mach * c_s)^2

  KOKKOS_INLINE_FUNCTION void operator()(const int cell, int& first) const {
    if (cell >= first || lattice.solid(cell)) return;
    Real density_excess, u[3];
    lattice.moments_of(cell, density_excess, u);
    const Real u2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    // NaN compares false with everything, so !(a <= b) also catches it.
    const bool bad = !(density_excess > Real(-1)) || !(u2 <= max_u2);
    if (bad) first = cell;
  }
};

template <class ExecutionSpace, class Storage>
struct Moments {
  using Real = arithmetic_t<Storage>;
  LatticeCells<ExecutionSpace, Storage> lattice;
  // (cell - first, 0: rho, 1..3: u): the cells from `first` on, a chunk at a time.
  Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space> density_velocity;
  int first = 0;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    const int row = cell - first;
    if (lattice.solid(cell)) {
      for (int k = 0; k < 4; ++k) density_velocity(row, k) = 0;
      return;
    }
    Real density_excess, u[3];
    lattice.moments_of(cell, density_excess, u);
    density_velocity(row, 0) = 1.0 + static_cast<double>(density_excess);
    for (int k = 0; k < 3; ++k) density_velocity(row, k + 1) = u[k];
  }
};

// Reduces the moments of the non-solid cells: the sum of their densities (`speed` false) or
// the largest |u| (`speed` true), where a NaN speed counts as infinite so that the maximum
// keeps it (a plain max drops NaN).
template <class ExecutionSpace, class Storage, bool speed>
struct SummaryReduction {
  using Real = arithmetic_t<Storage>;
  LatticeCells<ExecutionSpace, Storage> lattice;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell, double& value) const {
    if (lattice.solid(cell)) return;
    Real density_excess, u[3];
    lattice.moments_of(cell, density_excess, u);
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
  using Real = arithmetic_t<Storage>;
  LatticeCells<ExecutionSpace, Storage> lattice;
  Kokkos::View<double**, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>
      out;  // (cell, q): f*_q, 0 in solids

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    Real g[D3Q19::size];
    const bool solid = lattice.solid(cell);
    if (!solid) lattice.post_collision_of(cell, g);
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
  using Real = arithmetic_t<Storage>;
  LatticeCells<ExecutionSpace, Storage> lattice;
  State state;

  KOKKOS_INLINE_FUNCTION void operator()(const int cell) const {
    if (lattice.solid(cell)) return;
    const auto& grid = lattice.grid;
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
      if (lattice.layout == Layout::home)
        slot(lattice.f, cell, q, lattice.shifted) = g;
      else if (to >= 0)
        slot(lattice.f, to, q, lattice.shifted) = g;
      else
        slot(lattice.f, cell, D3Q19::opposite(q), lattice.shifted) = g;
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
