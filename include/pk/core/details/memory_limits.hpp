#pragma once
// The limits behind pk::host_available_bytes (pk/core/memory.hpp), apart so that tests can
// give them a made-up cgroup tree.
#include <string>

namespace pk::Details {

// Bytes the memory cgroup of this process (and its ancestors) still lets it take: the
// smallest limit minus usage, with the inactive page cache counted as free since the kernel
// reclaims it first; +infinity without a limit. `proc_self_cgroup`: the text of
// /proc/self/cgroup; `root`: where the cgroup file systems are mounted (/sys/fs/cgroup).
// Reads cgroup v2 (memory.max, memory.current) and v1 (memory/memory.limit_in_bytes,
// memory.usage_in_bytes).
double cgroup_available_bytes(const std::string& proc_self_cgroup, const std::string& root);

}  // namespace pk::Details
