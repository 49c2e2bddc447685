#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/error.hpp>
#include <pk/core/tuning.hpp>

#include <Kokkos_Macros.hpp>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#ifndef PK_COMMIT
#define PK_COMMIT "unknown"
#endif
#ifndef PK_KOKKOS_PATCHES
#define PK_KOKKOS_PATCHES ""
#endif

namespace pk {

std::string build_commit() { return PK_COMMIT; }

std::string kokkos_version() {
  char text[16];
  std::snprintf(text, sizeof text, "%d.%d.%02d", KOKKOS_VERSION / 10000, KOKKOS_VERSION / 100 % 100,
                KOKKOS_VERSION % 100);
  return text;
}

std::vector<std::string> kokkos_patches() {
  std::vector<std::string> patches;
  std::istringstream names(PK_KOKKOS_PATCHES);
  for (std::string name; std::getline(names, name, ',');) patches.push_back(name);
  return patches;
}

int compiled_simd_bytes() { return Tuning<Kokkos::DefaultHostExecutionSpace>::simd_bytes; }

int cpu_simd_bytes() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 64;
  if (__builtin_cpu_supports("avx")) return 32;
  return 16;
#else
  return compiled_simd_bytes();
#endif
}

namespace {

// The CPUs of a Linux CPU list ("0-3,8,10-11"); empty when it cannot be read.
std::set<int> cpu_list(const std::string& path) {
  std::set<int> cpus;
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return cpus;
  std::istringstream ranges(text);
  for (std::string range; std::getline(ranges, range, ',');) {
    int first = -1, last = -1;
    const int read = std::sscanf(range.c_str(), "%d-%d", &first, &last);
    if (read < 1 || first < 0) continue;
    for (int cpu = first; cpu <= (read == 2 ? last : first); ++cpu) cpus.insert(cpu);
  }
  return cpus;
}

// The size of the level-3 cache CPU shares with its neighbours (sysfs "size", e.g. "105600K");
// 0 where there is none or it cannot be read.
long long l3_cache_bytes(int cpu) {
  std::error_code ec;
  const std::string caches = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache";
  for (const auto& entry : std::filesystem::directory_iterator(caches, ec)) {
    int level = 0;
    std::ifstream(entry.path() / "level") >> level;
    if (level != 3) continue;
    long long size = 0;
    char unit = 0;
    std::ifstream(entry.path() / "size") >> size >> unit;
    return unit == 'K' ? size << 10 : unit == 'M' ? size << 20 : unit == 'G' ? size << 30 : size;
  }
  return 0;
}

// The machine's CPUs as the container or batch job gives them (its cpuset), not the calling
// thread's affinity, which OpenMP's binding narrows to one CPU.
std::set<int> machine_cpus() {
  std::set<int> cpus = cpu_list("/sys/fs/cgroup/cpuset.cpus.effective");
  if (cpus.empty()) cpus = cpu_list("/sys/devices/system/cpu/online");
  return cpus;
}

}  // namespace

HostTopology host_topology() {
  const std::set<int> cpus = machine_cpus();
  HostTopology topology;
  std::set<std::pair<long, long>> cores;  // (package, core)
  std::set<long> packages;
  const auto read_number = [](const std::string& path) {
    long value = -1;
    std::ifstream(path) >> value;
    return value;
  };
  for (const int cpu : cpus) {
    const std::string topology_path = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
    const long package = read_number(topology_path + "physical_package_id");
    const long core = read_number(topology_path + "core_id");
    ++topology.cpus;
    if (package < 0 || core < 0) continue;
    packages.insert(package);
    cores.insert({package, core});
  }
  topology.sockets = static_cast<int>(packages.size());
  topology.cores = static_cast<int>(cores.size());
  topology.threads_per_core = topology.cores > 0 ? topology.cpus / topology.cores : 0;
  if (!cpus.empty()) topology.l3_bytes = l3_cache_bytes(*cpus.begin());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/node", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 && std::isdigit(static_cast<unsigned char>(name[4])))
      ++topology.numa_nodes;
  }
  return topology;
}

CpuTime cpu_time(std::istream& proc_stat, const std::set<int>& cpus) {
  CpuTime time;
  for (std::string line; std::getline(proc_stat, line);) {
    int cpu = -1;  // a line "cpuN ...", not the machine's sum "cpu  ..."
    if (line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3])) ||
        std::sscanf(line.c_str(), "cpu%d", &cpu) != 1 || cpus.count(cpu) == 0)
      continue;
    // cpuN user nice system idle iowait irq softirq steal (guest time is inside user's)
    std::istringstream fields(line);
    std::string name;
    long long ticks[8] = {};
    fields >> name;
    for (long long& t : ticks) fields >> t;
    if (!fields) continue;
    for (const long long t : ticks) time.total += t;
    time.stolen += ticks[7];
  }
  return time;
}

CpuTime cpu_time() {
  std::ifstream proc_stat("/proc/stat");
  return cpu_time(proc_stat, machine_cpus());
}

double stolen_share(const CpuTime& before, const CpuTime& after) {
  const long long total = after.total - before.total;
  return total > 0 ? static_cast<double>(after.stolen - before.stolen) / static_cast<double>(total) : -1.0;
}

std::string result_file_name(const ResultRecord& record) {
  return record.kernel + "-" + record.case_name + "-" + record.space + ".json";
}

std::string write_result(const ResultRecord& record, const std::string& directory) {
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  for (const auto& [name, value] : record.metrics) {
    require(std::isfinite(value), "result " + result_file_name(record) + ": metric '" + name + "' is not finite");
    metrics[name] = value;
  }
  static const HostTopology topology = host_topology();  // one machine for the process's records
  nlohmann::ordered_json json = {{"kernel", record.kernel},
                                 {"case", record.case_name},
                                 {"space", record.space},
                                 {"device", record.device},
                                 {"commit", build_commit()},
                                 {"kokkos", {{"version", kokkos_version()}, {"patches", kokkos_patches()}}},
                                 {"host_simd_bytes", {{"compiled", compiled_simd_bytes()}, {"cpu", cpu_simd_bytes()}}},
                                 {"host",
                                  {{"cpu", host_cpu_model()},
                                   {"sockets", topology.sockets},
                                   {"cores", topology.cores},
                                   {"threads_per_core", topology.threads_per_core},
                                   {"numa_nodes", topology.numa_nodes},
                                   {"cpus", topology.cpus},
                                   {"l3_bytes", topology.l3_bytes}}},
                                 {"date", utc_timestamp()},
                                 {"command", record.command},
                                 {"metrics", metrics}};
  const std::string tuning_cache = tuning_cache_folder();
  json["tuning"] = {{"trials", autotune_trials()}, {"cache", tuning_cache.empty() ? "off" : tuning_cache}};
  json["openmp_binding"] = openmp_binding();
  json["openmp_wait_policy"] = openmp_wait_policy();
  if (!record.figure.empty()) {
    json["figure"] = record.figure;
    json["higher_is_better"] = record.higher_is_better;
  }
  if (!record.limit.empty()) json["limit"] = record.limit;
  if (record.interrupted) json["interrupted"] = true;
  make_directories(directory);
  const std::string path = (std::filesystem::path(directory) / result_file_name(record)).string();
  write_file(path, [&](std::ostream& out) { out << json.dump(2) << '\n'; });
  return path;
}

}  // namespace pk
