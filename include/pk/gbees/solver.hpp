#pragma once
// GBEES: grid-based Bayesian estimation exploiting sparsity (Hanson, Rubio, Garcia-Gutierrez,
// Bewley, "GBEES-GPU"). The PDF of dx/dt = f(x) lives on a sparse grid of cells around the
// probability mass; each step
//   grow    - add the downwind neighbours of cells with probability >= p* (sec. 3.3, 4.4.1:
//             forward, backward, then the four diagonal stages),
//   CFL     - dt = epsilon / max_cells sum_j |f_j| / h_j (eq. 8, sec. 5.2.2),
//   advect  - donor-cell upwind fluxes (eq. 7), corner-transport-upwind terms (Algorithm 1)
//             and the MC-limited high-resolution correction, finite-volume update,
//   normalise - parallel_reduce of the total, then scale,
// and every prune_interval steps pruning (Algorithm 3: mark cells below p* that no
// above-threshold upwind neighbour feeds, parallel_scan compaction, rehash). At a
// measurement time the PDF is multiplied by the Gaussian likelihood (eq. 4).
//
//   pk::gbees::Solver<Kokkos::OpenMP, pk::gbees::Lorenz63> solver(space, {}, pk::gbees::lorenz63_paper());
//   solver.advance_to(1.0);
//   solver.measure(parameters.measurements[0]);
//   pk::gbees::HostCells cells = solver.cells();
//
// Boundary of the sparse grid: as in GBEES, a face with no cell beyond it is open - the
// missing cell holds probability 0, so only outflow crosses it. Growth keeps a cell beyond
// every downwind face of the cells above p*, so only cells below p* lose probability there
// (statistics().outflow_probability); pruning (pruned_probability) and clipping negative
// undershoots to zero (clipped_probability) are the other changes to the total, which
// normalisation then restores to 1.
#include <pk/core/error.hpp>
#include <pk/gbees/details/kernels.hpp>
#include <pk/gbees/grid.hpp>
#include <pk/gbees/host_cells.hpp>
#include <pk/gbees/models.hpp>
#include <pk/gbees/parameters.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace pk::gbees {

struct StepInfo {
  double time = 0;
  double dt = 0;
  std::int64_t step = 0;
  std::int32_t cells = 0;
};

struct Statistics {
  std::int64_t steps = 0;
  std::int32_t max_cells = 0;
  double cell_steps = 0;            // sum over steps of the cells advanced (the paper's "cell computations")
  double pruned_probability = 0;    // removed by pruning (before renormalising)
  double clipped_probability = 0;   // negative undershoots set to zero
  double outflow_probability = 0;   // left through faces of cells below p* with nothing beyond
  std::size_t map_rehashes = 0;
  double peak_bytes = 0;            // grid memory at the largest allocation
};

namespace Details {

// One growth stage over the cells that existed when growth began. Stage 0: forward along
// every axis with f_j > 0; 1: backward where f_j < 0; 2..5: the diagonal pairs
// (+,+), (+,-), (-,+), (-,-) of two axes d != j whose velocities point that way. Only cells
// at or above p* grow (their direction masks say so and which way their faces flow).
template <class Inserter, class Grid>
struct GrowStage {
  KeyCodec codec;
  Inserter insert;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  typename Grid::NeighbourView neighbour;
  Kokkos::View<int, typename Grid::memory_space> out_of_range;
  int stage;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    const int mask = direction(c);
    if (!(mask & direction_above)) return;
    const int n = codec.n;
    const std::uint64_t k = key(c);
    if (stage < 2) {
      const int dir = stage == 0 ? 1 : -1;
      for (int j = 0; j < n; ++j) {
        if (!flows(mask, j, dir)) continue;
        if (neighbour(c, (dir > 0 ? n : 0) + j) >= 0) continue;  // exists already
        std::uint64_t other;
        if (codec.shift(k, j, dir, other)) insert(other);
        else out_of_range() = 1;
      }
    } else {
      const int dir_d = stage <= 3 ? 1 : -1;
      const int dir_j = (stage % 2 == 0) ? 1 : -1;
      for (int d = 0; d < n; ++d) {
        if (!flows(mask, d, dir_d)) continue;
        for (int j = 0; j < n; ++j) {
          if (j == d || !flows(mask, j, dir_j)) continue;
          // Known through the neighbour table already? Then no insert is tried.
          const std::int32_t via = neighbour(c, (dir_d > 0 ? n : 0) + d);
          if (via >= 0 && neighbour(via, (dir_j > 0 ? n : 0) + j) >= 0) continue;
          std::uint64_t a, b;
          if (codec.shift(k, d, dir_d, a) && codec.shift(a, j, dir_j, b)) insert(b);
          else out_of_range() = 1;
        }
      }
    }
  }
};

// Does cell q (with its neighbours) send probability across axis i in direction dir?
// q itself above threshold with f_i pointing that way, or a diagonal neighbour of q above
// threshold whose velocities carry it through q's face (sec. 3.3, Fig. 3).
template <class Grid>
struct PruneMark {
  int n;
  Kokkos::View<const std::int32_t*, typename Grid::memory_space> direction;
  typename Grid::NeighbourView neighbour;
  Kokkos::View<std::int32_t*, typename Grid::memory_space> keep;

  KOKKOS_INLINE_FUNCTION bool feeds(std::int32_t q, int i, int dir) const {
    const int mq = direction(q);
    if ((mq & direction_above) && flows(mq, i, dir)) return true;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const std::int32_t back = neighbour(q, j);
      if (back >= 0) {
        const int m = direction(back);
        if ((m & direction_above) && flows(m, i, dir) && flows(m, j, 1)) return true;
      }
      const std::int32_t front = neighbour(q, n + j);
      if (front >= 0) {
        const int m = direction(front);
        if ((m & direction_above) && flows(m, i, dir) && flows(m, j, -1)) return true;
      }
    }
    return false;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    int k = 1;
    if (!(direction(c) & direction_above)) {
      k = 0;
      for (int i = 0; i < n && !k; ++i) {
        const std::int32_t back = neighbour(c, i), front = neighbour(c, n + i);
        if ((back >= 0 && feeds(back, i, 1)) || (front >= 0 && feeds(front, i, -1))) k = 1;
      }
    }
    keep(c) = k;
  }
};

// Corner-transport-upwind terms (Algorithm 1) and the high-resolution correction for the
// faces behind cell c, scattered with atomics into the face fluxes of the cells they
// belong to (flux(c, j) is the flux through c's forward face on axis j).
template <class Model, class Grid>
struct CornerTransport {
  Model model;
  Geometry g;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<const double*, typename Grid::memory_space> probability;
  typename Grid::NeighbourView neighbour;
  typename Grid::FluxView flux;
  double dt;

  KOKKOS_INLINE_FUNCTION void operator()(const int c) const {
    const int n = g.n;
    double ix[max_dimension];
    cell_index(g, key(c), ix);
    const double pc = probability(c);
    for (int i = 0; i < n; ++i) {
      const std::int32_t ic = neighbour(c, i);
      if (ic < 0) continue;
      const double pi = probability(ic);
      const double fstar = dt * (pc - pi) / (2 * g.h[i]);  // F* of Algorithm 1, line 3
      if (fstar == 0) continue;
      const double up = face_velocity(model, g, ix, i, i, -1.0);  // f_i on the face between ic and c
      for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        if (up > 0) {
          const double vc = face_velocity(model, g, ix, j);  // line 5
          if (vc > 0) Kokkos::atomic_add(&flux(c, j), -up * vc * fstar);
          const std::int32_t jc = neighbour(c, j);  // line 6
          if (jc >= 0) {
            const double vj = face_velocity(model, g, ix, j, j, -1.0);
            if (vj < 0) Kokkos::atomic_add(&flux(jc, j), -up * vj * fstar);
          }
        } else if (up < 0) {
          const double vi = face_velocity(model, g, ix, j, i, -1.0);  // line 7
          if (vi > 0) Kokkos::atomic_add(&flux(ic, j), -up * vi * fstar);
          const std::int32_t pc2 = neighbour(ic, j);  // line 8
          if (pc2 >= 0) {
            const double vp = face_velocity(model, g, ix, j, i, -1.0, j, -1.0);
            if (vp < 0) Kokkos::atomic_add(&flux(pc2, j), -up * vp * fstar);
          }
        }
      }
      // High-resolution correction with the MC limiter; theta is the ratio of the upwind
      // jump to this jump (a missing cell counts as probability 0).
      double theta;
      if (up > 0) {
        const std::int32_t iic = neighbour(ic, i);
        theta = (pi - (iic >= 0 ? probability(iic) : 0.0)) / (pc - pi);
      } else {
        const std::int32_t kc = neighbour(c, n + i);
        theta = ((kc >= 0 ? probability(kc) : 0.0) - pc) / (pc - pi);
      }
      const double speed = up < 0 ? -up : up;
      Kokkos::atomic_add(&flux(ic, i), speed * (g.h[i] / dt - speed) * fstar * mc_limiter(theta));
    }
  }
};

// The finite-volume update p_c += dt/h_j (F_back - F_front) summed over axes, with the
// reductions of the new total (sums[0], for normalisation), of the probability added by
// clipping negative undershoots to zero (sums[1]) and of what flowed out through faces with
// no cell beyond (sums[2]): before normalising, total = 1 + clipped - outflow exactly.
template <class Model, class Grid>
struct Update {
  using value_type = double[];
  static constexpr unsigned value_count = 3;
  Model model;
  Geometry g;
  Kokkos::View<const std::uint64_t*, typename Grid::memory_space> key;
  Kokkos::View<double*, typename Grid::memory_space> probability;
  typename Grid::NeighbourView neighbour;
  typename Grid::FluxView flux;
  double dt;
  bool back_face_outflow;

  KOKKOS_INLINE_FUNCTION void init(double* v) const { v[0] = v[1] = v[2] = 0; }
  KOKKOS_INLINE_FUNCTION void join(double* dst, const double* src) const {
    dst[0] += src[0];
    dst[1] += src[1];
    dst[2] += src[2];
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int c, double* sums) const {
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
        double ix[max_dimension];
        cell_index(g, key(c), ix);
        const double out = ratio * negative_part(face_velocity(model, g, ix, j, j, -1.0)) * pc;
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

}  // namespace Details

template <class ExecutionSpace, class Model>
class Solver {
 public:
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using Grid = SparseGrid<ExecutionSpace>;
  using Observer = std::function<bool(const StepInfo&)>;  // return false to stop

  Solver(const ExecutionSpace& space, const Model& model, const Parameters& parameters)
      : space_(space), model_(model), parameters_(checked(parameters, model)),
        grid_(space, model.dimension(), 1024, parameters.max_cells),
        flags_(Kokkos::view_alloc(space, "pk::gbees::flags")),
        sums_(Kokkos::view_alloc(space, "pk::gbees::sums"), 3),
        run_sums_(Kokkos::view_alloc(space, "pk::gbees::run_sums"), 2) {
    geometry_.n = model.dimension();
    geometry_.codec = Details::KeyCodec(geometry_.n);
    for (int d = 0; d < geometry_.n; ++d) {
      geometry_.mean[d] = parameters_.initial_mean[d];
      geometry_.h[d] = parameters_.cell_width[d];
    }
    initialise();
  }

  const Parameters& parameters() const { return parameters_; }
  const Model& model() const { return model_; }
  const Grid& grid() const { return grid_; }
  double time() const { return time_; }
  std::int32_t cell_count() const { return grid_.count(); }
  Statistics statistics() const {
    Statistics s = statistics_;
    s.map_rehashes = grid_.map_rehashes();
    return s;
  }
  const Statistics& statistics_ref() const { return statistics_; }  // live, for progress reports
  const Details::Geometry& geometry() const { return geometry_; }

  // The Gaussian initial PDF on the box of +-round(extent std_j / h_j) cells, normalised.
  void initialise() {
    const int n = geometry_.n;
    std::int64_t half[max_dimension] = {}, total = 1;
    double inverse_std[max_dimension] = {};
    for (int d = 0; d < n; ++d) {
      half[d] = static_cast<std::int64_t>(
          std::round(parameters_.initial_extent * parameters_.initial_std[d] / parameters_.cell_width[d]));
      total *= 2 * half[d] + 1;
      inverse_std[d] = 1.0 / parameters_.initial_std[d];
    }
    require(total < (std::int64_t(1) << 31), "initial box of " + std::to_string(total) + " cells: too many");
    grid_.reserve(static_cast<std::size_t>(total));
    auto key = grid_.key();
    auto probability = grid_.probability();
    auto map = grid_.map();
    const auto g = geometry_;
    Details::IndexArray box_half;
    Details::RealArray box_inverse_std;
    for (int d = 0; d < n; ++d) {
      box_half.v[d] = half[d];
      box_inverse_std.v[d] = inverse_std[d];
    }
    Kokkos::View<int, memory_space> failures(Kokkos::view_alloc(space_, "pk::gbees::initialise::failures"));
    Kokkos::parallel_for(
        "pk::gbees::initialise", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, total), KOKKOS_LAMBDA(const std::int64_t s) {
          std::int64_t index[max_dimension] = {}, rest = s;
          double exponent = 0;
          for (int d = g.n - 1; d >= 0; --d) {
            const std::int64_t width = 2 * box_half.v[d] + 1;
            index[d] = rest % width - box_half.v[d];
            rest /= width;
            const double z = static_cast<double>(index[d]) * g.h[d] * box_inverse_std.v[d];
            exponent += z * z;
          }
          std::uint64_t k = 0;
          g.codec.pack(index, k);
          key(s) = k;
          probability(s) = ::exp(-0.5 * exponent);
          if (!map.insert(k, static_cast<std::int32_t>(s)).success()) Kokkos::atomic_add(&failures(), 1);
        });
    int failed = 0;
    Kokkos::deep_copy(failed, failures);
    require(failed == 0, "initial grid: " + std::to_string(failed) + " cells could not be inserted");
    grid_.set_count(static_cast<std::int32_t>(total));
    grid_.rebuild_neighbours();
    normalise();
    statistics_.max_cells = grid_.count();
    statistics_.peak_bytes = grid_.allocated_bytes();
  }

  // Directional growth (sec. 3.3, 4.4.1): six race-free stages over the cells that existed
  // when growth began, then one check on the host that no insert failed for want of room
  // (if one did, the map grows and all six stages run again: existing cells are found).
  void grow() {
    const std::int32_t m0 = grid_.count();
    static const char* labels[6] = {"pk::gbees::grow::forward",     "pk::gbees::grow::backward",
                                    "pk::gbees::grow::diagonal_ff", "pk::gbees::grow::diagonal_fb",
                                    "pk::gbees::grow::diagonal_bf", "pk::gbees::grow::diagonal_bb"};
    grid_.insert_pass([&](const typename Grid::Inserter& inserter) {
      for (int stage = 0; stage < 6; ++stage) {
        Details::GrowStage<typename Grid::Inserter, Grid> functor{
            geometry_.codec, inserter, grid_.key(), grid_.direction(), grid_.neighbour(), flags_, stage};
        Kokkos::parallel_for(labels[stage], Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m0), functor);
      }
    });
    statistics_.max_cells = std::max(statistics_.max_cells, grid_.count());
    statistics_.peak_bytes = std::max(statistics_.peak_bytes, grid_.allocated_bytes());
    grid_.reserve(static_cast<std::size_t>(grid_.count()));  // headroom for the next growth
  }

  // Completes the neighbour table after growth and returns the CFL limit of eq. (8),
  // min over cells of 1 / sum_j |f_j| / h_j (not yet times epsilon), in one pass. Slots below
  // first_new keep the neighbours they had (slots move only in pruning); only their missing
  // ones are looked up again.
  double neighbours_and_cfl(std::int32_t first_new) {
    const auto g = geometry_;
    const auto model = model_;
    auto key = grid_.key();
    auto map = grid_.map();
    auto neighbour = grid_.neighbour();
    double limit = std::numeric_limits<double>::max();
    Kokkos::parallel_reduce(
        "pk::gbees::neighbours_and_cfl", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()),
        KOKKOS_LAMBDA(const int c, double& smallest) {
          const std::uint64_t k = key(c);
          for (int s = 0; s < 2 * g.n; ++s) {
            if (c < first_new && neighbour(c, s) >= 0) continue;
            const int j = s < g.n ? s : s - g.n;
            std::uint64_t other;
            std::int32_t slot = -1;
            if (g.codec.shift(k, j, s < g.n ? -1 : 1, other)) {
              const auto index = map.find(other);
              if (map.valid_at(index)) slot = map.value_at(index);
            }
            neighbour(c, s) = slot;
          }
          double ix[max_dimension];
          Details::cell_index(g, k, ix);
          double rate = 0;
          for (int j = 0; j < g.n; ++j) rate += ::fabs(Details::face_velocity(model, g, ix, j)) / g.h[j];
          if (rate > 0 && 1.0 / rate < smallest) smallest = 1.0 / rate;
        },
        Kokkos::Min<double>(limit));
    return limit;
  }

  // One finite-volume step of length dt: DCU fluxes (eq. 7), CTU and high-resolution terms
  // (Algorithm 1), update, and normalisation - all without waiting for the device.
  void advect(double dt) {
    const int n = geometry_.n;
    const auto g = geometry_;
    const auto model = model_;
    auto key = grid_.key();
    auto probability = grid_.probability();
    auto neighbour = grid_.neighbour();
    auto flux = grid_.flux();
    const std::int32_t m = grid_.count();
    Kokkos::parallel_for(
        "pk::gbees::advect::donor_cell", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m), KOKKOS_LAMBDA(const int c) {
          double ix[max_dimension];
          Details::cell_index(g, key(c), ix);
          const double pc = probability(c);
          for (int j = 0; j < n; ++j) {
            // A missing cell beyond the face holds probability 0: what flows out is lost
            // (it comes from cells below p*, which do not grow) and renormalisation absorbs it.
            const std::int32_t front = neighbour(c, n + j);
            const double v = Details::face_velocity(model, g, ix, j);
            flux(c, j) = Details::positive_part(v) * pc + (front >= 0 ? Details::negative_part(v) * probability(front) : 0.0);
          }
        });
    Kokkos::parallel_for("pk::gbees::advect::corner_transport", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
                         Details::CornerTransport<Model, Grid>{model_, geometry_, key, probability, neighbour, flux, dt});
    Kokkos::parallel_reduce("pk::gbees::advect::update", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, m),
                            Details::Update<Model, Grid>{model_, geometry_, key, probability, neighbour, flux, dt,
                                                         parameters_.back_face_outflow}, sums_);
    scale_by_total();
  }

  // The sums of the last update (waits for the device): total before normalising, the
  // probability clipping added and what flowed out of the grid.
  struct UpdateSums {
    double total = 0, clipped = 0, outflow = 0;
  };
  UpdateSums last_update() {
    check_device_state();
    return last_update_;
  }

  // Sum of the cell probabilities (waits for the device).
  double total_probability() const {
    auto probability = grid_.probability();
    double total = 0;
    Kokkos::parallel_reduce(
        "pk::gbees::total_probability", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()),
        KOKKOS_LAMBDA(const int c, double& sum) { sum += probability(c); }, total);
    return total;
  }

  // Scales the cell probabilities to sum 1 and checks the sum on the host; returns the sum before.
  double normalise() {
    auto probability = grid_.probability();
    Kokkos::parallel_reduce(
        "pk::gbees::normalise::sum", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()),
        KOKKOS_LAMBDA(const int c, double& sum) { sum += probability(c); }, Kokkos::subview(sums_, 0));
    Kokkos::deep_copy(space_, Kokkos::subview(sums_, std::make_pair(1, 3)), 0.0);  // no update: nothing clipped or lost
    scale_by_total();
    return check_device_state();
  }

  // Algorithm 3: mark, parallel_scan compaction, rehash; then the neighbour table. Returns
  // the probability removed (the caller renormalises).
  double prune() {
    Kokkos::parallel_for("pk::gbees::prune::mark", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()),
                         Details::PruneMark<Grid>{geometry_.n, grid_.direction(), grid_.neighbour(), grid_.scratch()});
    const double removed = grid_.compact();
    grid_.rebuild_neighbours();
    statistics_.pruned_probability += removed;
    return removed;
  }

  // Bayes update (eq. 4) with the Gaussian likelihood of `m`, normalisation and a prune.
  void measure(const Measurement& m) {
    const auto g = geometry_;
    const Measurement meas = m;
    auto key = grid_.key();
    auto probability = grid_.probability();
    Kokkos::parallel_for(
        "pk::gbees::measure", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()), KOKKOS_LAMBDA(const int c) {
          double ix[max_dimension];
          Details::cell_index(g, key(c), ix);
          double exponent = 0;
          for (int k = 0; k < meas.count; ++k) {
            const int d = meas.component[k];
            const double z = (g.mean[d] + g.h[d] * ix[d] - meas.value[k]) / meas.std[k];
            exponent += z * z;
          }
          probability(c) *= ::exp(-0.5 * exponent);
        });
    normalise();
    prune();
    normalise();
  }

  // One step no longer than max_dt: grow, CFL step, advect, normalise; every
  // prune_interval steps a prune. Returns the step taken.
  double step(double max_dt = std::numeric_limits<double>::infinity()) {
    const std::int32_t before = grid_.count();
    grow();
    double dt = parameters_.epsilon * neighbours_and_cfl(before);
    if (!(dt < max_dt)) dt = max_dt;  // also when the CFL limit is infinite
    advect(dt);
    time_ += dt;
    ++statistics_.steps;
    statistics_.cell_steps += grid_.count();
    if (statistics_.steps % parameters_.prune_interval == 0) {
      prune();
      normalise();
    }
    return dt;
  }

  // Steps until time() reaches t (the last step is shortened to land on it). The observer,
  // if any, sees every step and can stop the run by returning false (then this returns false).
  bool advance_to(double t, const Observer& observer = {}) {
    while (t - time_ > 1e-12 * std::max(1.0, std::fabs(t))) {
      const double dt = step(t - time_);
      if (observer && !observer(StepInfo{time_, dt, statistics_.steps, grid_.count()})) {
        check_device_state();
        return false;
      }
    }
    time_ = t;
    check_device_state();
    return true;
  }

  // Runs to parameters().end_time, applying the measurements at their times.
  bool run(const Observer& observer = {}) {
    for (const Measurement& m : parameters_.measurements) {
      if (m.time < time_) continue;
      if (!advance_to(m.time, observer)) return false;
      measure(m);
    }
    return advance_to(parameters_.end_time, observer);
  }

  // The cells on the host: keys, centres, probabilities.
  HostCells cells() const {
    const std::int32_t m = grid_.count();
    HostCells out;
    out.n = geometry_.n;
    out.time = time_;
    out.cell_width.assign(parameters_.cell_width.begin(), parameters_.cell_width.end());
    out.key.resize(m);
    out.probability.resize(m);
    Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> key(out.key.data(), m);
    Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> probability(out.probability.data(), m);
    Kokkos::deep_copy(space_, key, Kokkos::subview(grid_.key(), std::make_pair(0, m)));
    Kokkos::deep_copy(space_, probability, Kokkos::subview(grid_.probability(), std::make_pair(0, m)));
    space_.fence();
    out.index.resize(static_cast<std::size_t>(m) * out.n);
    out.position.resize(static_cast<std::size_t>(m) * out.n);
    for (std::int32_t c = 0; c < m; ++c)
      for (int d = 0; d < out.n; ++d) {
        const std::int64_t i = geometry_.codec.index(out.key[c], d);
        out.index[static_cast<std::size_t>(c) * out.n + d] = i;
        out.position[static_cast<std::size_t>(c) * out.n + d] = geometry_.mean[d] + geometry_.h[d] * static_cast<double>(i);
      }
    return out;
  }

  // (Public only because CUDA lambdas cannot live in private member functions.)
  // Divides every cell by sums_(0), moves sums_(1..2) into the run's totals, and writes
  // each cell's direction mask for the next growth and prune (every path that changes cells
  // or probabilities ends here).
  void scale_by_total() {
    auto probability = grid_.probability();
    auto direction = grid_.direction();
    auto key = grid_.key();
    auto sums = sums_;
    auto run_sums = run_sums_;
    const auto g = geometry_;
    const auto model = model_;
    const double threshold = parameters_.threshold;
    Kokkos::parallel_for(
        "pk::gbees::normalise::scale", Kokkos::RangePolicy<ExecutionSpace>(space_, 0, grid_.count()),
        KOKKOS_LAMBDA(const int c) {
          const double total = sums(0);
          double p = probability(c);
          if (total > 0) probability(c) = p = p / total;
          direction(c) = Details::direction_mask(model, g, key(c), p >= threshold);
          if (c == 0) {
            run_sums(0) += sums(1);
            run_sums(1) += sums(2);
          }
        });
  }

  // Reads the device-side state (waits for the device); throws on a bad one. Returns the
  // total before the last normalisation.
  double check_device_state() {
    using HostArray = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    int flags = 0;
    double sums[3] = {0, 0, 0}, run_sums[2] = {0, 0};
    Kokkos::deep_copy(space_, flags, flags_);
    Kokkos::deep_copy(space_, HostArray(sums, 3), sums_);
    Kokkos::deep_copy(space_, HostArray(run_sums, 2), run_sums_);
    space_.fence();
    statistics_.clipped_probability = run_sums[0];
    statistics_.outflow_probability = run_sums[1];
    last_update_ = UpdateSums{sums[0], sums[1], sums[2]};
    require(flags == 0, "grid growth left the range of the packed cell index (+-" +
                            std::to_string(geometry_.codec.limit()) + " cells per axis in " +
                            std::to_string(geometry_.n) + "-D): use a larger cell width");
    require(sums[0] > 0 && std::isfinite(sums[0]),
            "GBEES: total probability is " + std::to_string(sums[0]) + " at t = " + std::to_string(time_) +
                " (a measurement far from every cell, or a blown-up step)");
    return sums[0];
  }

 private:
  static const Parameters& checked(const Parameters& p, const Model& model) {
    validate(p, model.dimension());
    return p;
  }

  ExecutionSpace space_;
  Model model_;
  Parameters parameters_;
  Details::Geometry geometry_;
  Grid grid_;
  double time_ = 0;
  Statistics statistics_;
  // Device-side state that steps update without waiting: flags_ (1: growth left the key
  // range), sums_ (total before normalising, clipped and outflow of the last update),
  // run_sums_ (clipped and outflow over the run). Read on the host by check_device_state.
  Kokkos::View<int, memory_space> flags_;
  Kokkos::View<double*, memory_space> sums_;
  Kokkos::View<double*, memory_space> run_sums_;
  UpdateSums last_update_;

};

}  // namespace pk::gbees
