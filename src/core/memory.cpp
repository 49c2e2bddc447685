#include <pk/core/details/memory_limits.hpp>
#include <pk/core/memory.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>
#include <sstream>

namespace pk {

namespace {

namespace fs = std::filesystem;

constexpr double unlimited = std::numeric_limits<double>::infinity();

// The number that starts a file, or nothing when it is missing or holds none ("max").
bool read_number(const fs::path& path, double& value) {
  std::ifstream in(path);
  return static_cast<bool>(in >> value);
}

// `key`'s value in a file of "key value" lines (memory.stat, /proc/meminfo); 0 without it.
double field(const fs::path& path, const std::string& key) {
  std::ifstream in(path);
  std::string name;
  double value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

// The least headroom of `group` and its ancestors below `top`: limit - usage + inactive cache.
double headroom(fs::path group, const fs::path& top, const char* limit_file, const char* usage_file,
                const char* inactive_key) {
  double least = unlimited;
  for (;;) {
    double limit = 0, usage = 0;
    // v1 reports "no limit" as a huge number near 2^63, v2 as "max" (no number).
    if (read_number(group / limit_file, limit) && limit < 1e18 && read_number(group / usage_file, usage))
      least = std::min(least, std::max(0.0, limit - usage + field(group / "memory.stat", inactive_key)));
    if (group == top || group.parent_path() == group) break;
    group = group.parent_path();
  }
  return least;
}

}  // namespace

namespace Details {

double cgroup_available_bytes(const std::string& proc_self_cgroup, const std::string& root) {
  double least = unlimited;
  std::istringstream lines(proc_self_cgroup);
  for (std::string line; std::getline(lines, line);) {  // "ID:CONTROLLERS:PATH"
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const fs::path path = fs::path(line.substr(second + 1)).relative_path();
    if (controllers == ",,") {  // v2: one hierarchy
      const fs::path top = fs::path(root);
      least = std::min(least,
                       headroom(path.empty() ? top : top / path, top, "memory.max", "memory.current", "inactive_file"));
    } else if (controllers.find(",memory,") != std::string::npos) {
      // v1. Inside a container the process's path may be the host's, absent from the
      // container's mount, whose top is then the process's own group.
      const fs::path top = fs::path(root) / "memory";
      const fs::path group = !path.empty() && fs::exists(top / path) ? top / path : top;
      least = std::min(least,
                       headroom(group, top, "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"));
    }
  }
  return least;
}

}  // namespace Details

bool is_allocation_failure(const std::exception& e) {
  if (dynamic_cast<const Error*>(&e)) return dynamic_cast<const OutOfMemory*>(&e) != nullptr;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return true;
  const std::string what = e.what();
  return what.rfind("Kokkos ERROR: ", 0) == 0 && what.find("failed to allocate") != std::string::npos;
}

double host_available_bytes() {
  // Physical memory: MemAvailable (4 GB, a modest assumption, without it).
  double available = field("/proc/meminfo", "MemAvailable:") * 1024;
  if (available <= 0) available = 4e9;
  // The address-space limit (ulimit -v) less what the process maps already.
  rlimit limit = {};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    double pages = 0;
    read_number("/proc/self/statm", pages);  // the first number: the process's size in pages
    available = std::min(available, std::max(0.0, double(limit.rlim_cur) - pages * ::sysconf(_SC_PAGESIZE)));
  }
  // A batch system's or container's memory cgroup.
  std::ifstream cgroup("/proc/self/cgroup");
  std::stringstream text;
  text << cgroup.rdbuf();
  return std::min(available, Details::cgroup_available_bytes(text.str(), "/sys/fs/cgroup"));
}

}  // namespace pk
