#include <pk/core/device_info.hpp>

#include <fstream>
#include <map>

namespace pk {

std::string host_cpu_model() {
  // The first processor's fields; a virtual machine's model name can be as generic as "Intel(R)
  // Xeon(R) Processor" for CPUs of different generations, which the family and model tell apart.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::map<std::string, std::string> fields;
  for (std::string line; std::getline(cpuinfo, line) && !line.empty();) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);  // "model name\t: ..." (npos + 1 = 0: all blank)
    const auto value_begin = line.find_first_not_of(' ', colon + 1);
    fields.emplace(key, value_begin == std::string::npos ? "" : line.substr(value_begin));
  }
  const auto name = fields.find("model name");
  if (name == fields.end() || name->second.empty()) return "unknown CPU";
  const auto family = fields.find("cpu family"), model = fields.find("model"), stepping = fields.find("stepping");
  if (family == fields.end() || model == fields.end()) return name->second;
  return name->second + " (family " + family->second + ", model " + model->second +
         (stepping == fields.end() ? "" : ", stepping " + stepping->second) + ")";
}

}  // namespace pk
