#pragma once
// Benchmark and run records, written as one JSON file each:
// {kernel, case, space, device, commit, kokkos: {version, patches}, host_simd_bytes: {compiled,
//  cpu}, host: {cpu, sockets, cores, threads_per_core, numa_nodes, cpus, l3_bytes}, date, command,
//  metrics: {name: number, ...}, tuning: {trials, cache}, openmp_binding, openmp_wait_policy},
// and "interrupted": true for a run that SIGINT or SIGTERM stopped early. pk-bench adds to the
// metrics host_stolen_share (stolen_share below over a kernel's cases).
#include <pk/core/clock.hpp>

#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pk {

struct ResultRecord {
  std::string kernel;
  std::string case_name;
  std::string space;
  std::string device;
  std::string command;
  std::map<std::string, double> metrics;
  bool interrupted = false;
  std::string figure;            // the metric compared with a limit (pk-bench), or empty
  std::string limit;             // what that limit is; metrics["limit_ratio"] holds figure / limit
  bool higher_is_better = true;  // whether a larger figure is the better one (a rate, not a time)
};

// The commit this binary was built from (git describe, "-dirty" for local changes).
std::string build_commit();

// The Kokkos this binary was built against, as "4.6.01".
std::string kokkos_version();

// The project's patches (deps/patches) in that Kokkos, as the bootstrap applied them; empty
// for a Kokkos installed elsewhere (Spack, a module), which carries none of ours.
std::vector<std::string> kokkos_patches();

// Bytes of the widest SIMD register the host code was compiled for (PK_HOST_ARCH), and of the
// widest this CPU has (x86: AVX-512 64, AVX 32, else 16; elsewhere taken to be the build's). A
// build for a narrower CPU than the one it runs on (e.g. -march=native on another machine)
// runs, but its host figures are not this CPU's.
int compiled_simd_bytes();
int cpu_simd_bytes();

// The host's layout, as the records give it: sockets, cores, hardware threads per core and
// NUMA nodes of the CPUs its cpuset holds, and the level-3 cache of the first of them (Linux
// sysfs and cgroups; 0 where unknown).
struct HostTopology {
  int sockets = 0, cores = 0, threads_per_core = 0, numa_nodes = 0, cpus = 0;
  long long l3_bytes = 0;
};
HostTopology host_topology();

// The CPU time of the machine's CPUs (its cpuset) from /proc/stat, in the kernel's ticks: all
// of it, and what the hypervisor gave to other guests ("steal"); zero where it cannot be read.
// Two readings around a run say how much of the machine another guest took meanwhile.
struct CpuTime {
  long long total = 0, stolen = 0;
};
CpuTime cpu_time();
CpuTime cpu_time(std::istream& proc_stat, const std::set<int>& cpus);  // from a /proc/stat text

// The share of the CPU time between two readings that was stolen; -1 where none was counted.
double stolen_share(const CpuTime& before, const CpuTime& after);

// "<kernel>-<case>-<space>.json"
std::string result_file_name(const ResultRecord& record);

// Writes the record to `directory`/result_file_name(record), creating the directory.
// Returns the path written. Throws pk::Error when the file cannot be written (the file
// then does not appear: see atomic_file.hpp).
std::string write_result(const ResultRecord& record, const std::string& directory);

}  // namespace pk
