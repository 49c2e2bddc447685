#include <pk/core/atomic_file.hpp>
#include <pk/core/clock.hpp>
#include <pk/core/tuning.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#ifndef PK_COMMIT
#define PK_COMMIT "unknown"
#endif

namespace pk {

namespace {

std::mutex choices_mutex;
std::map<std::pair<std::string, std::string>, int>& choices() {
  static std::map<std::pair<std::string, std::string>, int> made;
  return made;
}
std::atomic<long> trials{0};

// A field of the cache's tab-separated lines: no tab or line break of a name may split it.
std::string field(std::string text) {
  for (char& c : text)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return text;
}

// What makes a timing this build's: the code (commit), the Kokkos it runs on, the compiler and
// the host SIMD width it was compiled for. Another build times its choices again.
const std::string& build_key() {
  static const std::string key =
      field(std::string(PK_COMMIT) + " kokkos " + std::to_string(KOKKOS_VERSION) + " " + __VERSION__ + " simd " +
            std::to_string(Tuning<Kokkos::DefaultHostExecutionSpace>::simd_bytes));
  return key;
}

constexpr const char* cache_file = "choices.tsv";

// The cache's lines that parse: build, device, key, choice, evidence, date.
std::vector<std::pair<std::string, StoredChoice>> read_cache(const std::string& folder) {
  std::vector<std::pair<std::string, StoredChoice>> lines;
  std::ifstream in(std::filesystem::path(folder) / cache_file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    if (fields.size() != 6) continue;  // a line another version wrote, or a torn one: timed again
    StoredChoice stored{fields[1], fields[2], 0, fields[4], fields[5]};
    char* end = nullptr;
    errno = 0;
    const long choice = std::strtol(fields[3].c_str(), &end, 10);
    if (fields[3].empty() || *end != '\0' || errno != 0 || choice < INT32_MIN || choice > INT32_MAX) continue;
    stored.choice = static_cast<int>(choice);
    lines.emplace_back(fields[0], stored);
  }
  return lines;
}

// Once per process: a cache that cannot be written costs later runs their trials, not this one.
void warn_unwritable(const std::string& folder, const std::string& why) {
  static std::once_flag warned;
  std::call_once(warned, [&] {
    std::cerr << "pk: tuning cache " << folder << " not written (" << why << "): choices are timed again next run\n";
  });
}

// Adds or replaces the line of (build, device, key): under an exclusive lock on the folder's
// lock file, so that processes and ranks sharing the cache merge their choices, and through
// write_file, so that a reader never sees half a file.
void write_choice(const std::string& folder, const StoredChoice& choice) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return warn_unwritable(folder, error.message());
  const std::string lock_path = (std::filesystem::path(folder) / "choices.lock").string();
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return warn_unwritable(folder, std::strerror(errno));
  while (::flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  auto lines = read_cache(folder);
  lines.erase(std::remove_if(lines.begin(), lines.end(),
                             [&](const auto& line) {
                               return line.first == build_key() && line.second.device == choice.device &&
                                      line.second.key == choice.key;
                             }),
              lines.end());
  lines.emplace_back(build_key(), choice);
  try {
    write_file((std::filesystem::path(folder) / cache_file).string(), [&](std::ostream& out) {
      for (const auto& [build, c] : lines)
        out << build << '\t' << c.device << '\t' << c.key << '\t' << c.choice << '\t' << c.evidence << '\t' << c.date
            << '\n';
    });
  } catch (const Error& e) {
    warn_unwritable(folder, e.what());
  }
  ::close(lock);  // releases the lock
}

}  // namespace

long autotune_trials() { return trials.load(); }

std::string tuning_cache_folder() {
  if (const char* setting = std::getenv("PK_TUNING_CACHE")) {
    const std::string folder = setting;
    return folder == "off" || folder == "0" ? std::string() : folder;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return (std::filesystem::path(xdg) / "portablekernels" / "tuning").string();
  if (const char* home = std::getenv("HOME"); home && *home == '/')
    return (std::filesystem::path(home) / ".cache" / "portablekernels" / "tuning").string();
  return "";
}

std::vector<StoredChoice> stored_choices() {
  std::vector<StoredChoice> made;
  const std::string folder = tuning_cache_folder();
  if (folder.empty()) return made;
  for (auto& [build, choice] : read_cache(folder))
    if (build == build_key()) made.push_back(std::move(choice));
  return made;
}

namespace Details {

DeviceFacts host_facts(int threads) {
  DeviceFacts facts;
  facts.name = host_cpu_model();
  facts.multiprocessors = threads;
  return facts;
}

std::optional<int> cached_choice(const std::string& instance, const std::string& key) {
  const std::lock_guard<std::mutex> lock(choices_mutex);
  const auto found = choices().find({instance, key});
  if (found == choices().end()) return std::nullopt;
  return found->second;
}

void cache_choice(const std::string& instance, const std::string& key, int choice) {
  const std::lock_guard<std::mutex> lock(choices_mutex);
  choices()[{instance, key}] = choice;
}

std::optional<int> stored_choice(const std::string& device, const std::string& key) {
  for (const StoredChoice& stored : stored_choices())
    if (stored.device == device && stored.key == key) return stored.choice;
  return std::nullopt;
}

void store_choice(const std::string& device, const std::string& key, int choice,
                  const std::vector<CandidateTiming>& timings) {
  const std::string folder = tuning_cache_folder();
  if (folder.empty()) return;
  std::ostringstream evidence;
  evidence.precision(4);
  for (const CandidateTiming& t : timings)
    evidence << (&t == &timings.front() ? "" : "; ") << t.candidate << ": " << t.median << " s [" << t.min << ", "
             << t.max << "]";
  write_choice(folder, {device, field(key), choice, field(evidence.str()), utc_timestamp()});
}

std::string device_key(const std::string& backend, const DeviceFacts& facts) {
  return field(backend + ": " + facts.name + ", " + std::to_string(facts.multiprocessors) + " units");
}

int decide(const std::vector<CandidateTiming>& timings) {
  const CandidateTiming& fallback = timings.front();
  const CandidateTiming* best = &fallback;
  for (const CandidateTiming& t : timings)
    if (t.below_max < fallback.min && t.median < best->median) best = &t;
  return best->candidate;
}

CandidateTiming summarize(int candidate, std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  return {candidate, seconds[seconds.size() / 2], seconds.front(), seconds.back(),
          seconds[seconds.size() > 1 ? seconds.size() - 2 : 0]};
}

void count_trial() { ++trials; }

bool autotune_enabled() {
  const char* setting = std::getenv("PK_AUTOTUNE");
  return !(setting && std::string(setting) == "0");
}

}  // namespace Details

}  // namespace pk
