#pragma once
// The finite-volume step of GBEES: donor-cell upwind fluxes (eq. 7, written by the kernel
// that completes the neighbour table, details/time_step.hpp), corner-transport-upwind terms
// (Algorithm 1) with the MC-limited high-resolution correction, and the update of the cell
// probabilities from the face fluxes. The kernels run over the live cells of a running step
// (LiveCells) with the step's dt from the device clock.
//
// flux(c, j) is the flux through cell c's forward face on axis j. A face with no cell beyond
// it is open: the missing cell holds probability 0, so only outflow crosses it.
#include <pk/gbees/details/device_state.hpp>
#include <pk/gbees/details/geometry.hpp>
#include <pk/gbees/models.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

KOKKOS_INLINE_FUNCTION double positive_part(double v) { return v > 0 ? v : 0.0; }
KOKKOS_INLINE_FUNCTION double negative_part(double v) { return v < 0 ? v : 0.0; }

// Monotonized-central flux limiter of the high-resolution correction (Bewley & Sharma).
KOKKOS_INLINE_FUNCTION double mc_limiter(double theta) {
  const double a = (1 + theta) / 2 < 2.0 ? (1 + theta) / 2 : 2.0;
  const double b = a < 2 * theta ? a : 2 * theta;
  return b > 0 ? b : 0.0;
}

// Donor-cell upwind flux through a cell's forward face (eq. 7): drift v there, the cell's
// probability pc, the slot of the cell beyond (-1: none). What flows out through an open
// face is lost (it comes from cells below p*, which do not grow); normalisation restores
// the total. NeighboursFluxesAndCfl writes every flux, so the corner-transport terms can then
// add to them.
template <class ProbabilityView>
KOKKOS_INLINE_FUNCTION double donor_cell_flux(double v, double pc, std::int32_t front,
                                              const ProbabilityView& probability) {
  return positive_part(v) * pc + (front >= 0 ? negative_part(v) * probability(front) : 0.0);
}

// The high-resolution correction on the face between cells of probabilities `lower` and
// `upper` (lower first along the axis), drift v there, with the MC limiter; upwind_jump is
// the jump across the next face upwind (a missing cell counts as probability 0).
KOKKOS_INLINE_FUNCTION double high_resolution(double v, double h, double dt, double lower, double upper,
                                              double upwind_jump) {
  const double jump = upper - lower, fstar = dt * jump / (2 * h);  // F* of Algorithm 1, line 3
  if (fstar == 0) return 0;                                        // also a step of length 0
  const double speed = v < 0 ? -v : v;
  return speed * (h / dt - speed) * fstar * mc_limiter(upwind_jump / jump);
}

// Corner-transport-upwind terms (Algorithm 1) and the high-resolution correction, added to
// the face fluxes by the cell upwind of each face. Algorithm 1 scatters from each face the
// transverse terms -v_j F* into the axis-j faces around it; those that reach an axis-j face
// all come from the faces of the cell upwind of it (the face's own cell when f_j > 0 there,
// the one beyond when f_j < 0), so that cell sums them (`transverse`) and writes the face.
// Each face has exactly one writer (the drift on a face is bit-identical whichever cell
// evaluates it), so no atomics are needed, and each face's drift is evaluated once per
// adjacent cell instead of once per term.
template <class Model, class Grid>
struct CornerTransport {
  Model model;
  Geometry g;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  typename Grid::NeighbourView neighbour;
  typename Grid::FluxView flux;
  Kokkos::View<const StepClock, typename Grid::memory_space> clock;
  LiveCells<typename Grid::memory_space> live;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (!live(c) || !g.slab.inner(g.codec, key(c))) return;  // an outer ghost's terms reach no owned cell
    const double dt = clock().dt;
    const int n = g.n;
    CellFaces faces(g, key(c));
    const double pc = probability(c);
    // Per axis: the drift on the backward and forward faces, the neighbours' probabilities
    // (0: none), and the F* terms of the faces whose flow enters the cell, v F* (line 3).
    double back_v[max_dimension], front_v[max_dimension], back_p[max_dimension], front_p[max_dimension];
    double entering[max_dimension];
    double total = 0;
    for (int k = 0; k < n; ++k) {
      const std::int32_t back = neighbour(c, k), front = neighbour(c, n + k);
      back_v[k] = faces.backward(model, g, k);
      front_v[k] = faces.forward(model, g, k);
      back_p[k] = back >= 0 ? probability(back) : 0.0;
      front_p[k] = front >= 0 ? probability(front) : 0.0;
      const double scale = dt / (2 * g.h[k]);
      entering[k] = (back >= 0 && back_v[k] > 0 ? back_v[k] * scale * (pc - back_p[k]) : 0.0) +
                    (front >= 0 && front_v[k] < 0 ? front_v[k] * scale * (front_p[k] - pc) : 0.0);
      total += entering[k];
    }
    for (int j = 0; j < n; ++j) {
      const double transverse = total - entering[j];  // lines 5-8: from the other axes
      const std::int32_t back = neighbour(c, j), front = neighbour(c, n + j);
      if (front_v[j] > 0) {
        double add = -front_v[j] * transverse;
        if (front >= 0) add += high_resolution(front_v[j], g.h[j], dt, pc, front_p[j], pc - back_p[j]);
        flux(c, j) += add;
      }
      if (back_v[j] < 0 && back >= 0)
        flux(back, j) +=
            -back_v[j] * transverse + high_resolution(back_v[j], g.h[j], dt, back_p[j], pc, front_p[j] - pc);
    }
  }
};

// The finite-volume update p_c += dt/h_j (F_back - F_front) summed over axes, with the
// reductions of the new total (sums[0], for normalisation), of the probability added by
// clipping negative undershoots to zero (sums[1]) and of what flowed out through faces with
// no cell beyond (sums[2]): before normalising, total = 1 + clipped - outflow exactly, for
// each PDF of an ensemble.
template <class Model, class Grid>
struct FiniteVolumeUpdate {
  using value_type = double[];
  Model model;
  Geometry g;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;
  typename Grid::NeighbourView neighbour;
  typename Grid::FluxView flux;
  Kokkos::View<const StepClock, typename Grid::memory_space> clock;
  LiveCells<typename Grid::memory_space> live;
  bool back_face_outflow;                           // Parameters::back_face_outflow
  MemberSums<typename Grid::memory_space> members;  // per PDF (atomics: zeroed before)
  unsigned value_count = 3;                         // a reduction's: 3 per PDF

  KOKKOS_INLINE_FUNCTION void init(double* v) const {
    for (unsigned i = 0; i < value_count; ++i) v[i] = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(double* dst, const double* src) const {
    for (unsigned i = 0; i < value_count; ++i) dst[i] += src[i];
  }
  // parallel_reduce into the rows of every PDF (one PDF, or an ensemble on host threads).
  KOKKOS_INLINE_FUNCTION void operator()(const int c, double* sums) const {
    if (live(c)) update(c, sums + 3 * g.codec.member(key(c)));
  }
  // parallel_for, each cell's sums added to its PDF's row with atomics (an ensemble on a
  // GPU, where a reduction of 3 values per PDF would not fit a block's shared memory).
  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    if (!live(c)) return;
    double sums[3] = {0, 0, 0};
    update(c, sums);
    const int e = g.codec.member(key(c));
    for (int i = 0; i < 3; ++i)
      if (sums[i] != 0) Kokkos::atomic_add(&members(e, i), sums[i]);
  }

  // A rank updates and sums only the cells it owns: its ghosts' owners send theirs (Slab).
  KOKKOS_INLINE_FUNCTION void update(const int c, double* sums) const {
    if (g.owns(key(c))) apply(c, sums);
  }
  KOKKOS_INLINE_FUNCTION void apply(const int c, double* sums) const {
    const double dt = clock().dt;
    const int n = g.n;
    const double pc = probability(c);
    double change = 0;
    for (int j = 0; j < n; ++j) {
      const double ratio = dt / g.h[j];
      change -= ratio * flux(c, j);
      if (neighbour(c, n + j) < 0) sums[2] += ratio * flux(c, j);
      const std::int32_t back = neighbour(c, j);
      if (back >= 0) {
        change += ratio * flux(back, j);
      } else if (back_face_outflow) {  // open backward face, nothing behind: only outflow (f_j < 0) crosses
        const double out = ratio * negative_part(CellFaces(g, key(c)).backward(model, g, j)) * pc;
        change += out;
        sums[2] -= out;
      }
    }
    double p = pc + change;
    if (p < 0) {
      sums[1] -= p;
      p = 0;
    }
    probability(c) = p;
    sums[0] += p;
  }
};

}  // namespace pk::gbees::Details
