#include <pk/core/tuning.hpp>

#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace pk::Details {

namespace {
std::mutex choices_mutex;
std::map<std::pair<std::string, std::string>, int>& choices() {
  static std::map<std::pair<std::string, std::string>, int> made;
  return made;
}
}  // namespace

DeviceFacts host_facts(int threads) {
  DeviceFacts facts;
  facts.name = host_cpu_model();
  facts.multiprocessors = threads;
  return facts;
}

std::optional<int> cached_choice(const std::string& device, const std::string& key) {
  const std::lock_guard<std::mutex> lock(choices_mutex);
  const auto found = choices().find({device, key});
  if (found == choices().end()) return std::nullopt;
  return found->second;
}

void cache_choice(const std::string& device, const std::string& key, int choice) {
  const std::lock_guard<std::mutex> lock(choices_mutex);
  choices()[{device, key}] = choice;
}

bool autotune_enabled() {
  const char* setting = std::getenv("PK_AUTOTUNE");
  return !(setting && std::string(setting) == "0");
}

}  // namespace pk::Details
