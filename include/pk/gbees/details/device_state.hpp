#pragma once
// What the kernels leave on the device for the host, so that no step has to bring it back:
// the step's clock (time, dt, counters) and phase, and the totals and flags the host checks
// when it must (after a batch of steps, a normalisation, last_update).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// The step's phase: running while its kernels have work; idle once the target time is
// reached (the rest of the batch does nothing); a step whose growth found no room in the map
// stops until the host grows the map and resumes it (SparseGrid::insert_failed).
inline constexpr int step_idle = 0;
inline constexpr int step_running = 1;

// The time stepping's state on the device (BeginStep and ChooseStep write it).
struct StepClock {
  double time = 0;
  double dt = 0;         // of the last step
  double target = 0;     // the batch's end time
  double tolerance = 0;  // a step starts only while target - time > tolerance
  double cell_steps = 0;
  std::int64_t steps = 0;
  std::int32_t first_new = 0;  // the cell count before this step's growth
  std::int32_t max_cells = 0;
};

// Per PDF of an ensemble (one row for one PDF): the total before normalising, the
// probability clipping added, what flowed out of the grid. LayoutRight: a row is the
// three contiguous sums a one-PDF reduction writes.
template <class MemorySpace>
using MemberSums = Kokkos::View<double* [3], Kokkos::LayoutRight, MemorySpace>;

template <class MemorySpace>
struct DeviceState {
  // 1 once growth met the edge of the packed key's range (GrowCells::out_of_range).
  Kokkos::View<int, MemorySpace> out_of_range;
  // Of the last update (FiniteVolumeUpdate's, or normalise's sum), per PDF.
  MemberSums<MemorySpace> update_sums;
  MemberSums<MemorySpace> step_sums;  // the same, of a step not yet recorded
  // Clipped and outflow probability over the run (ScaleByTotal adds update_sums(1..2)).
  Kokkos::View<double*, MemorySpace> run_sums;
  Kokkos::View<StepClock, MemorySpace> clock;
  Kokkos::View<int, MemorySpace> phase;
  Kokkos::View<double, MemorySpace> cfl_limit;  // of this step, before epsilon (eq. 8)

  struct OnHost {
    int out_of_range = 0;
    typename MemberSums<MemorySpace>::HostMirror update_sums;
    double run_sums[2] = {0, 0};
  };

  template <class ExecutionSpace>
  DeviceState(const ExecutionSpace& space, int members)
      : out_of_range(Kokkos::view_alloc(space, "pk::gbees::flags")),
        update_sums(Kokkos::view_alloc(space, "pk::gbees::sums"), members),
        step_sums(Kokkos::view_alloc(space, "pk::gbees::step_sums"), members),
        run_sums(Kokkos::view_alloc(space, "pk::gbees::run_sums"), 2),
        clock(Kokkos::view_alloc(space, "pk::gbees::clock")),
        phase(Kokkos::view_alloc(space, "pk::gbees::phase")),
        cfl_limit(Kokkos::view_alloc(space, "pk::gbees::cfl_limit")) {}

  // Waits for the device.
  template <class ExecutionSpace>
  OnHost read(const ExecutionSpace& space) const {
    using HostArray = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    OnHost h;
    // Not initialised: an initialisation would run on the host's default instance.
    h.update_sums = typename MemberSums<MemorySpace>::HostMirror(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "pk::gbees::sums_on_host"), update_sums.extent(0));
    Kokkos::deep_copy(space, h.out_of_range, out_of_range);
    Kokkos::deep_copy(space, h.update_sums, update_sums);
    Kokkos::deep_copy(space, HostArray(h.run_sums, 2), run_sums);
    space.fence();
    return h;
  }

  // Waits for the device.
  template <class ExecutionSpace>
  StepClock read_clock(const ExecutionSpace& space) const {
    StepClock h;
    Kokkos::deep_copy(space, h, clock);
    space.fence();
    return h;
  }
};

// The slots a kernel launched over the whole cell capacity works on: those below the cell
// count on the device, and within a step only while it runs (its growth found room, its
// target is not reached yet), so that a batch of steps needs no count or time from the host.
template <class MemorySpace>
struct LiveCells {
  Kokkos::View<const std::int32_t, MemorySpace> count;
  Kokkos::View<const int, MemorySpace> phase;
  Kokkos::View<const int, MemorySpace> insert_failed;
  bool in_step = true;

  KOKKOS_INLINE_FUNCTION bool operator()(const int c) const { return c < count() && running(); }
  KOKKOS_INLINE_FUNCTION bool running() const { return !in_step || (phase() == step_running && !insert_failed()); }
};

}  // namespace pk::gbees::Details
