#pragma once
// The time step on the device: BeginStep opens it, NeighboursFluxesAndCfl completes the
// neighbour table after growth, writes the donor-cell fluxes and reduces the CFL limit
// (eq. 8, sec. 5.2.2) in one read of each key and one drift per face, ChooseStep sets dt
// and advances the clock. A batch of steps thus runs without the host:
// the step that reaches the target lands on it, and later steps of the batch do nothing.
#include <pk/gbees/details/advection.hpp>
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/grid.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>

namespace pk::gbees::Details {

// One thread: the end time of the next batch of steps (a step starts only while
// target - time > tolerance).
template <class MemorySpace>
struct AimClock {
  Kokkos::View<StepClock, MemorySpace> clock;
  double target, tolerance;

  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    clock().target = target;
    clock().tolerance = tolerance;
  }
};

// One thread: whether the step runs, and the cell count its growth starts from. After a
// failed insert it leaves everything as it is: the host grows the map and resumes that
// step without opening a new one.
template <class MemorySpace>
struct BeginStep {
  Kokkos::View<StepClock, MemorySpace> clock;
  Kokkos::View<int, MemorySpace> phase;
  Kokkos::View<const std::int32_t, MemorySpace> count;
  Kokkos::View<const int, MemorySpace> insert_failed;

  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    if (insert_failed()) return;
    StepClock& k = clock();
    k.first_new = count();
    phase() = k.target - k.time > k.tolerance ? step_running : step_idle;
  }
};

// The cell's row of the neighbour table, its donor-cell fluxes, and min over cells of
// 1 / sum_j |f_j| / h_j (parallel_reduce with Kokkos::Min into the device; the step is
// epsilon times it). Only the cells growth added (slots from first_new) look up their
// neighbours; LinkNewCells then enters them in their older neighbours' rows, so the cells
// that were there already never probe the map for a neighbour that is still missing. Until
// then an older cell may miss a new neighbour, which changes none of its fluxes: new cells
// hold probability 0.
template <class Model, class Grid>
struct NeighboursFluxesAndCfl {
  Model model;
  Geometry g;
  typename Grid::Map map;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  typename Grid::NeighbourView neighbour;
  typename Grid::FluxView flux;
  Kokkos::View<const StepClock, typename Grid::memory_space> clock;
  LiveCells<typename Grid::memory_space> live;

  KOKKOS_INLINE_FUNCTION void operator()(const int c, double& smallest) const {
    if (!live(c)) return;
    const std::uint64_t k = key(c);
    if (c >= clock().first_new) find_neighbours(map, g.codec, neighbour, c, k);
    if (!g.slab.inner(g.codec, k)) return;  // an outer ghost's fluxes reach no owned cell
    CellFaces faces(g, k);
    const double pc = probability(c);
    double rate = 0;
    for (int j = 0; j < g.n; ++j) {
      const double v = faces.forward(model, g, j);
      rate += ::fabs(v) / g.h[j];
      flux(c, j) = donor_cell_flux(v, pc, neighbour(c, g.n + j), probability);
    }
    if (rate > 0 && 1.0 / rate < smallest && g.owns(k)) smallest = 1.0 / rate;
  }
};

// One thread: dt = epsilon times the CFL limit, shortened to land on the target (also when
// the limit is infinite); the clock, the step count and the cell statistics advance.
template <class MemorySpace>
struct ChooseStep {
  Kokkos::View<StepClock, MemorySpace> clock;
  Kokkos::View<const double, MemorySpace> cfl_limit;
  LiveCells<MemorySpace> live;
  double epsilon;

  KOKKOS_INLINE_FUNCTION void operator()(const int) const {
    if (!live(0)) return;
    StepClock& k = clock();
    double dt = epsilon * cfl_limit();
    if (!(dt < k.target - k.time)) dt = k.target - k.time;
    k.dt = dt;
    k.time += dt;
    if (k.target - k.time <= k.tolerance) k.time = k.target;
    ++k.steps;
    const std::int32_t cells = live.count();
    k.cell_steps += cells;
    if (cells > k.max_cells) k.max_cells = cells;
  }
};

// Each cell growth added, in the rows of the older cells beside it (link_to_older); slot 0
// also chooses the step (ChooseStep), which needs the CFL limit the kernel before reduced and
// writes no field of the clock this kernel reads: one launch (a parallel region on host
// spaces) fewer a step.
template <class Grid>
struct LinkNewCells {
  typename Grid::NeighbourView neighbour;
  Kokkos::View<const StepClock, typename Grid::memory_space> clock;
  LiveCells<typename Grid::memory_space> live;
  int n;
  ChooseStep<typename Grid::memory_space> choose;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (c == 0) choose(0);
    const std::int32_t first_new = clock().first_new;
    if (c < first_new || !live(c)) return;
    link_to_older(neighbour, n, c, first_new);
  }
};

}  // namespace pk::gbees::Details
