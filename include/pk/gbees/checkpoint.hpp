#pragma once
// GBEES checkpoints (pk/core/checkpoint.hpp). A solver continues bit for bit from its cells
// (keys, probabilities, direction masks, in slot order), its clock and statistics, and a map
// that later inserts find as they found the original: where an insert lands and whether it
// fails depends on the map's layout, which a checkpoint rebuilds as a prune leaves it (cells
// inserted in slot order into a map of the capacity it had, then the room reserve() made).
// So a checkpoint is taken where the grid is as the last prune left it: at the end of a
// batch that ended with a prune (can_continue), or at the end of the run (nothing left to
// continue). Bit for bit only where the run itself is: one host thread (docs/gbees.md).
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>
#include <pk/gbees/solver.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pk::gbees {

template <class Solver>
struct CheckpointState {
  // Whether the solver's state continues bit for bit from a checkpoint taken now.
  static bool can_continue(const Solver& s) { return s.state_.grid_.rebuilt().current; }

  // Adds the solver's state (values and sections) to `header`; its step is the step count.
  static void describe(CheckpointHeader& h, const Solver& s) {
    const auto& st = s.state_.statistics_;
    const auto rebuilt = s.state_.grid_.rebuilt();
    const auto clock = s.state_.device_state_.read_clock(s.state_.space_);
    h.step = st.steps;
    h.add_value("time", s.state_.time_);
    h.add_value("last-dt", s.state_.last_dt_);
    h.add_value("pruned-at-step", s.state_.pruned_at_step_);
    h.add_value("max-cells", st.max_cells);
    h.add_value("cell-steps", st.cell_steps);
    h.add_value("pruned-probability", st.pruned_probability);
    h.add_value("peak-bytes", st.peak_bytes);
    h.add_value("cells", std::int64_t{s.state_.grid_.count()});
    h.add_value("rebuilt", std::int64_t{rebuilt.current ? 1 : 0});
    h.add_value("rebuilt-map-capacity", static_cast<std::int64_t>(rebuilt.map_capacity));
    h.add_value("rebuilt-capacity", static_cast<std::int64_t>(rebuilt.capacity));
    h.add_value("map-capacity", static_cast<std::int64_t>(s.state_.grid_.map_capacity()));
    h.add_value("capacity", static_cast<std::int64_t>(s.state_.grid_.capacity()));
    h.add_value("map-rehashes", static_cast<std::int64_t>(s.state_.grid_.map_rehashes()));
    h.add_value("clock-time", clock.time);
    h.add_value("clock-dt", clock.dt);
    h.add_value("clock-target", clock.target);
    h.add_value("clock-tolerance", clock.tolerance);
    h.add_value("clock-cell-steps", clock.cell_steps);
    h.add_value("clock-steps", clock.steps);
    h.add_value("clock-first-new", std::int64_t{clock.first_new});
    h.add_value("clock-max-cells", std::int64_t{clock.max_cells});
    const auto cells = static_cast<std::uint64_t>(s.state_.grid_.count());
    h.sections.push_back({"key", cells * sizeof(std::uint64_t)});
    h.sections.push_back({"probability", cells * sizeof(double)});
    h.sections.push_back({"direction", cells * sizeof(std::int32_t)});
    h.sections.push_back({"device-state", (3 * static_cast<std::uint64_t>(s.state_.members_) + 3) * sizeof(double)});
  }

  static void write(CheckpointWriter& w, const Solver& s) {
    const std::int32_t m = s.state_.grid_.count();
    const auto first = std::make_pair(0, m);
    const auto key =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, Kokkos::subview(s.state_.grid_.key(), first));
    const auto p =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, Kokkos::subview(s.state_.grid_.probability(), first));
    const auto d =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, Kokkos::subview(s.state_.grid_.direction(), first));
    w.write(key.data(), m * sizeof(std::uint64_t));
    w.write(p.data(), m * sizeof(double));
    w.write(d.data(), m * sizeof(std::int32_t));
    w.write(device_state(s).data(), (3 * s.state_.members_ + 3) * sizeof(double));
  }

  // Restores a checkpoint into `s`, a solver just built with the run's parameters.
  static void read(CheckpointReader& r, Solver& s) {
    const CheckpointHeader& h = r.header();
    const auto count = static_cast<std::size_t>(h.integer_value("cells"));
    const std::string in = "--restart " + r.path() + ": ";
    require(h.sections.size() == 4 && h.sections[0].bytes == count * sizeof(std::uint64_t) &&
                h.sections[3].bytes == (3 * static_cast<std::uint64_t>(s.state_.members_) + 3) * sizeof(double),
            in, "its sections do not fit ", count, " cells of ", s.state_.members_, " PDFs");
    std::vector<std::uint64_t> key(count);
    std::vector<double> probability(count), state(3 * s.state_.members_ + 3);
    std::vector<std::int32_t> direction(count);
    r.read(key.data(), key.size() * sizeof(std::uint64_t));
    r.read(probability.data(), probability.size() * sizeof(double));
    r.read(direction.data(), direction.size() * sizeof(std::int32_t));
    r.read(state.data(), state.size() * sizeof(double));
    r.finish();
    const auto size = [&](const char* name) { return static_cast<std::size_t>(h.integer_value(name)); };
    const bool rebuilt = h.integer_value("rebuilt") == 1;
    // A state the last prune left, or the end of the run: the grid as it was then.
    typename Solver::Grid::Rebuilt at{true, size(rebuilt ? "rebuilt-map-capacity" : "map-capacity"),
                                      size(rebuilt ? "rebuilt-capacity" : "capacity")};
    s.state_.grid_.restore(at, key, probability, direction, size("map-rehashes"));
    s.state_.grid_.rebuild_neighbours();
    // The room the batch's end made, as it made it (capacities unchanged: none was made).
    if (rebuilt && (size("map-capacity") != at.map_capacity || size("capacity") != at.capacity))
      s.state_.grid_.reserve(count);
    require(s.state_.grid_.map_capacity() == size("map-capacity") && s.state_.grid_.capacity() == size("capacity"), in,
            "the grid did not rebuild to the checkpoint's capacities (another program version?)");
    s.state_.time_ = h.real_value("time");
    s.state_.last_dt_ = h.real_value("last-dt");
    s.state_.pruned_at_step_ = h.integer_value("pruned-at-step");
    s.state_.statistics_.steps = h.step;
    s.state_.statistics_.max_cells = h.integer_value("max-cells");
    s.state_.statistics_.cell_steps = h.real_value("cell-steps");
    s.state_.statistics_.pruned_probability = h.real_value("pruned-probability");
    s.state_.statistics_.peak_bytes = h.real_value("peak-bytes");
    Details::StepClock clock;
    clock.time = h.real_value("clock-time");
    clock.dt = h.real_value("clock-dt");
    clock.target = h.real_value("clock-target");
    clock.tolerance = h.real_value("clock-tolerance");
    clock.cell_steps = h.real_value("clock-cell-steps");
    clock.steps = h.integer_value("clock-steps");
    clock.first_new = static_cast<std::int32_t>(h.integer_value("clock-first-new"));
    clock.max_cells = static_cast<std::int32_t>(h.integer_value("clock-max-cells"));
    auto& d = s.state_.device_state_;
    Kokkos::deep_copy(s.state_.space_, d.clock, clock);
    const auto sums = Kokkos::create_mirror_view(d.update_sums);
    for (int e = 0; e < s.state_.members_; ++e)
      for (int k = 0; k < 3; ++k) sums(e, k) = state[3 * e + k];
    Kokkos::deep_copy(s.state_.space_, d.update_sums, sums);
    Kokkos::deep_copy(s.state_.space_, Kokkos::View<double*, typename Solver::memory_space>(d.run_sums),
                      Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          &state[3 * s.state_.members_], 2));
    Kokkos::deep_copy(s.state_.space_, d.phase, static_cast<int>(state[3 * s.state_.members_ + 2]));
    s.state_.space_.fence();
    s.state_.check_device_state();  // last_update_ and the clipped and outflow statistics
  }

 private:
  // update_sums per PDF, run_sums, phase.
  static std::vector<double> device_state(const Solver& s) {
    const auto host = s.state_.device_state_.read(s.state_.space_);
    std::vector<double> out;
    for (int e = 0; e < s.state_.members_; ++e)
      for (int k = 0; k < 3; ++k) out.push_back(host.update_sums(e, k));
    out.push_back(host.run_sums[0]);
    out.push_back(host.run_sums[1]);
    int phase = 0;
    Kokkos::deep_copy(s.state_.space_, phase, s.state_.device_state_.phase);
    s.state_.space_.fence();
    out.push_back(phase);
    return out;
  }
};

}  // namespace pk::gbees
