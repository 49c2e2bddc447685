#pragma once
// What the kernels leave on the device for the host, so that no step has to bring it back:
// the host reads it only when it must (the end of advance_to, normalise, last_update) and
// then checks it.
#include <Kokkos_Core.hpp>

namespace pk::gbees::Details {

template <class MemorySpace>
struct DeviceState {
  // 1 once growth met the edge of the packed key's range (GrowStage::out_of_range).
  Kokkos::View<int, MemorySpace> out_of_range;
  // Of the last update (FiniteVolumeUpdate's reduction, or normalise's sum): the total
  // before normalising, the probability clipping added, what flowed out of the grid.
  Kokkos::View<double*, MemorySpace> update_sums;
  // Clipped and outflow probability over the run (ScaleByTotal adds update_sums(1..2)).
  Kokkos::View<double*, MemorySpace> run_sums;

  struct OnHost {
    int out_of_range = 0;
    double update_sums[3] = {0, 0, 0};
    double run_sums[2] = {0, 0};
  };

  template <class ExecutionSpace>
  explicit DeviceState(const ExecutionSpace& space)
      : out_of_range(Kokkos::view_alloc(space, "pk::gbees::flags")),
        update_sums(Kokkos::view_alloc(space, "pk::gbees::sums"), 3),
        run_sums(Kokkos::view_alloc(space, "pk::gbees::run_sums"), 2) {}

  // Waits for the device.
  template <class ExecutionSpace>
  OnHost read(const ExecutionSpace& space) const {
    using HostArray = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    OnHost h;
    Kokkos::deep_copy(space, h.out_of_range, out_of_range);
    Kokkos::deep_copy(space, HostArray(h.update_sums, 3), update_sums);
    Kokkos::deep_copy(space, HostArray(h.run_sums, 2), run_sums);
    space.fence();
    return h;
  }
};

}  // namespace pk::gbees::Details
