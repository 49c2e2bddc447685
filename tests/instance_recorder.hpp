#pragma once
// Records, through Kokkos Tools callbacks, every kernel and fence between start and stop, so
// that tests can check that a call ran all its work on the execution space instance it was
// given and labelled it (ArborX's tstKokkosToolsExecutionSpaceInstances does the same).
#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace pk::test {

class InstanceRecorder {
 public:
  struct Event {
    std::string name;
    std::uint32_t device_id;
    std::vector<std::string> regions;  // the profiling regions it ran in
  };

  InstanceRecorder() {
    using namespace Kokkos::Tools::Experimental;
    set_begin_parallel_for_callback(&kernel);
    set_begin_parallel_reduce_callback(&kernel);
    set_begin_parallel_scan_callback(&kernel);
    set_begin_fence_callback(&fence);
    set_push_region_callback(&push);
    set_pop_region_callback(&pop);
    state() = {};
  }
  ~InstanceRecorder() {
    using namespace Kokkos::Tools::Experimental;
    set_begin_parallel_for_callback(nullptr);
    set_begin_parallel_reduce_callback(nullptr);
    set_begin_parallel_scan_callback(nullptr);
    set_begin_fence_callback(nullptr);
    set_push_region_callback(nullptr);
    set_pop_region_callback(nullptr);
  }
  InstanceRecorder(const InstanceRecorder&) = delete;
  InstanceRecorder& operator=(const InstanceRecorder&) = delete;

  const std::vector<Event>& kernels() const { return state().kernels; }
  const std::vector<Event>& fences() const { return state().fences; }

  // Every kernel and fence ran on `instance`; every kernel is labelled pk::..., or is Kokkos'
  // own (view initialisation, fills and copies: "Kokkos::...", naming the view where there is
  // one) or a library's (Kokkos Kernels) inside a pk:: profiling region.
  template <class ExecutionSpace>
  void expect_all_on(const ExecutionSpace& instance) const {
    const std::uint32_t id = Kokkos::Tools::Experimental::device_id(instance);
    EXPECT_FALSE(kernels().empty()) << "nothing was recorded";
    for (const Event& k : kernels()) {
      if (kokkos_own_host_work(k.name)) continue;
      EXPECT_EQ(k.device_id, id) << "kernel '" << k.name << "' ran on another instance" << in_regions(k);
      const bool ours = k.name.rfind("pk::", 0) == 0;
      const bool kokkos = k.name.rfind("Kokkos::", 0) == 0;
      const bool in_our_region =
          std::any_of(k.regions.begin(), k.regions.end(), [](const std::string& r) { return r.rfind("pk::", 0) == 0; });
      EXPECT_TRUE(ours || kokkos || in_our_region) << "kernel '" << k.name << "' carries no pk:: label";
    }
    for (const Event& f : fences())
      if (!kokkos_own_global_fence(f.name) && !kokkos_own_host_work(f.name))
        EXPECT_EQ(f.device_id, id) << "fence '" << f.name << "' of another instance" << in_regions(f);
  }

 private:
  // Global fences that Kokkos itself makes and no caller can avoid: the fence before every
  // callback while a tool is attached (this recorder's own), and the one before every
  // HostSpace deallocation.
  static bool kokkos_own_global_fence(const std::string& name) {
    return name == "Kokkos::Tools::invoke_kokkosp_callback: Kokkos Profile Tool Fence" ||
           name == "HostSpace::impl_deallocate before free";
  }
  // Host work that Kokkos does on the host's default instance whatever instance the caller
  // gave, none of it on a GPU: Kokkos::UnorderedMap allocates and zeroes its size cache there
  // (Kokkos_UnorderedMap.hpp: view_alloc(DefaultHostExecutionSpace{}, label + " - size")),
  // and a copy between two host views finishes with a fence of that instance.
  static bool kokkos_own_host_work(const std::string& name) {
    const std::string size_cache = " - size] via memset";
    return name == "HostSpace fence" || name == "Kokkos::View::initialization via memset" ||
           (name.rfind("Kokkos::View::initialization [", 0) == 0 && name.size() > size_cache.size() &&
            name.compare(name.size() - size_cache.size(), size_cache.size(), size_cache) == 0);
  }
  static std::string in_regions(const Event& e) {
    std::string where;
    for (const std::string& r : e.regions) where += " in " + r;
    return where;
  }

  struct State {
    std::vector<Event> kernels, fences;
    std::vector<std::string> regions;
  };
  static State& state() {
    static State s;
    return s;
  }
  static void kernel(const char* name, std::uint32_t device_id, std::uint64_t*) {
    state().kernels.push_back({name, device_id, state().regions});
  }
  static void fence(const char* name, std::uint32_t device_id, std::uint64_t*) {
    state().fences.push_back({name, device_id, state().regions});
  }
  static void push(const char* name) { state().regions.emplace_back(name); }
  static void pop() {
    if (!state().regions.empty()) state().regions.pop_back();
  }
};

// A second instance of Space (its own stream on a GPU), not the default one.
template <class Space>
Space partitioned_instance() {
  return Kokkos::Experimental::partition_space(Space(), 1)[0];
}

}  // namespace pk::test
