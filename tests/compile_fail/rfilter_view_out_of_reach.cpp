// A field in memory the execution space cannot reach: the device space given a host view,
// or (in a host-only build) a host space given a view of a memory space no host space
// reaches, which this test then has to name through the device space.
#include <pk/rfilter/filter.hpp>

struct UnreachableMemory {  // a memory space of its own: no execution space can reach it
  using memory_space = UnreachableMemory;
  using execution_space = Kokkos::DefaultHostExecutionSpace;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using size_type = std::size_t;
  static constexpr const char* name() { return "UnreachableMemory"; }
};

void smooth(const Kokkos::View<double*, Kokkos::LayoutLeft, UnreachableMemory, Kokkos::MemoryUnmanaged>& field) {
  pk::rfilter::apply_filter(Kokkos::DefaultHostExecutionSpace{}, field, 0, pk::rfilter::make_coefficients(2.0, 4));
}
