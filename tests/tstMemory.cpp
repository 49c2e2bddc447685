// How much memory a run may take: the address-space limit and the memory cgroup beside the
// physical memory, and failed allocations turned into refusals that say what fits.
#include "spaces.hpp"

#include <pk/core/details/memory_limits.hpp>
#include <pk/core/error.hpp>
#include <pk/core/memory.hpp>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

namespace {

namespace fs = std::filesystem;

// A made-up cgroup tree under a fresh directory: `files` maps paths below it to contents.
fs::path cgroup_tree(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
  const auto root = fs::temp_directory_path() / ("pk-tests-cgroup-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const auto& [path, text] : files) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  }
  return root;
}

TEST(MemoryLimits, CgroupV2TakesTheTightestLimitOfTheGroupAndItsAncestors) {
  const auto root = cgroup_tree("v2", {{"job/memory.max", "4000000000\n"},
                                       {"job/memory.current", "1000000000\n"},
                                       {"job/memory.stat", "anon 900000000\ninactive_file 500000000\n"},
                                       {"job/step/memory.max", "max\n"},
                                       {"job/step/memory.current", "800000000\n"}});
  // 4e9 - 1e9 + 0.5e9 of inactive page cache; the step itself has no limit.
  EXPECT_DOUBLE_EQ(pk::Details::cgroup_available_bytes("0::/job/step\n", root.string()), 3.5e9);
  fs::remove_all(root);
}

TEST(MemoryLimits, CgroupV1ReadsTheMemoryController) {
  const auto root = cgroup_tree("v1", {{"memory/slurm/job_7/memory.limit_in_bytes", "2000000000\n"},
                                       {"memory/slurm/job_7/memory.usage_in_bytes", "500000000\n"},
                                       {"memory/slurm/job_7/memory.stat", "cache 1\ntotal_inactive_file 0\n"},
                                       {"memory/slurm/memory.limit_in_bytes", "9223372036854771712\n"},
                                       {"memory/slurm/memory.usage_in_bytes", "600000000\n"}});
  const std::string self = "12:pids:/slurm/job_7\n11:cpuacct,cpu:/slurm/job_7\n4:memory:/slurm/job_7\n0::/\n";
  EXPECT_DOUBLE_EQ(pk::Details::cgroup_available_bytes(self, root.string()), 1.5e9);
  fs::remove_all(root);
}

TEST(MemoryLimits, ACgroupPathThatTheContainerDoesNotShowReadsItsTop) {
  // Inside a container the host's path is listed, and the container's group is mounted at the top.
  const auto root = cgroup_tree("container", {{"memory/memory.limit_in_bytes", "3000000000\n"},
                                              {"memory/memory.usage_in_bytes", "1000000000\n"}});
  EXPECT_DOUBLE_EQ(pk::Details::cgroup_available_bytes("4:memory:/docker/0123abcd\n", root.string()), 2e9);
  fs::remove_all(root);
}

TEST(MemoryLimits, NoLimitIsInfinite) {
  const auto root = cgroup_tree("none", {{"memory.max", "max\n"}, {"memory.current", "5\n"}});
  EXPECT_TRUE(std::isinf(pk::Details::cgroup_available_bytes("0::/\n", root.string())));
  EXPECT_TRUE(std::isinf(pk::Details::cgroup_available_bytes("", "/nonexistent-pk")));
  fs::remove_all(root);
}

TEST(MemoryLimits, TheAddressSpaceLimitCaps) {
  rlimit before = {};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &before), 0);
  std::ifstream statm("/proc/self/statm");
  double pages = 0;
  ASSERT_TRUE(statm >> pages);
  const double mapped = pages * ::sysconf(_SC_PAGESIZE), headroom = 512e6;
  rlimit limited = before;
  limited.rlim_cur = static_cast<rlim_t>(mapped + headroom);
  if (before.rlim_max != RLIM_INFINITY && limited.rlim_cur > before.rlim_max) GTEST_SKIP() << "a lower hard limit";
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &limited), 0);
  const double available = pk::host_available_bytes();
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &before), 0);
  EXPECT_LE(available, headroom);
  EXPECT_GT(available, headroom - 64e6);  // what the process mapped meanwhile aside
}

template <class Space>
class Memory : public ::testing::Test {};
TYPED_TEST_SUITE(Memory, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TYPED_TEST(Memory, AFailedAllocationBecomesARefusalSayingWhatFits) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on an allocation this large instead of failing it";
#else
  using Space = TypeParam;
  const Space space;
  std::string message;
  try {
    pk::refuse_if_out_of_memory(
        space, "a petabyte", [](double bytes) { return "about " + std::to_string(bytes > 0); },
        [&] {
          Kokkos::View<char*, typename Space::memory_space> huge(
              Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::test::huge"), std::size_t{1} << 50);
        });
  } catch (const pk::OutOfMemory& e) {
    message = e.what();
  }
  const std::string start = std::string(pk::SpaceTraits<Space>::name) + ": a petabyte ran out of memory (";
  EXPECT_EQ(message.substr(0, start.size()), start) << message;
  EXPECT_NE(message.find("pk::test::huge"), std::string::npos) << message;  // Kokkos names the view
  const std::string end = "): about 1";                                     // the advice, given the bytes available
  EXPECT_EQ(message.substr(message.size() - std::min(message.size(), end.size())), end) << message;
#endif
}

TEST(Memory, OtherErrorsPassThrough) {
  EXPECT_THROW(pk::refuse_if_out_of_memory(Kokkos::DefaultHostExecutionSpace{}, "x", {},
                                           [] { throw std::logic_error("not an allocation"); }),
               std::logic_error);
  EXPECT_THROW(
      pk::refuse_if_out_of_memory(Kokkos::DefaultHostExecutionSpace{}, "x", {}, [] { throw pk::Error("bad input"); }),
      pk::Error);
  EXPECT_TRUE(pk::is_allocation_failure(std::bad_alloc()));
  EXPECT_FALSE(pk::is_allocation_failure(std::runtime_error("Kokkos ERROR: something else")));
  // A refusal that quotes a failed allocation is not one itself.
  EXPECT_FALSE(pk::is_allocation_failure(pk::Error("x (Kokkos ERROR: Host memory space failed to allocate 1 B)")));
  EXPECT_TRUE(pk::is_allocation_failure(
      std::runtime_error("Kokkos ERROR: Host memory space failed to allocate 1.0 PiB (label=\"pk::test::huge\").")));
}

}  // namespace
