#include <pk/core/error.hpp>
#include <pk/core/session.hpp>
#include <pk/core/space_selection.hpp>

#include <algorithm>
#include <map>
#include <sstream>
#include <thread>

namespace pk {

namespace {

enum class Value { none, threads, device, device_count, text, mapping };

// The options this Kokkos reads, and the value each takes.
const std::map<std::string, Value>& known_kokkos_options() {
  static const std::map<std::string, Value> options = {
      {"--kokkos-help", Value::none},          {"--kokkos-disable-warnings", Value::none},
      {"--kokkos-tune-internals", Value::none}, {"--kokkos-threads", Value::threads},
      {"--kokkos-device", Value::device},       {"--kokkos-ndevices", Value::device_count},
      {"--kokkos-tools-library", Value::text},  {"--kokkos-tools-args", Value::text},
#if KOKKOS_VERSION >= 40000
      {"--kokkos-num-threads", Value::threads}, {"--kokkos-device-id", Value::device},
      {"--kokkos-num-devices", Value::device_count}, {"--kokkos-map-device-id-by", Value::mapping},
      {"--kokkos-tools-libs", Value::text},     {"--kokkos-tools-help", Value::none},
      {"--kokkos-print-configuration", Value::none},
#else
      {"--kokkos-numa", Value::threads},
#endif
  };
  return options;
}

// The whole of `text` as an integer in [low, high], or an error naming the option.
long parse_count(const std::string& option, const std::string& text, long low, long high) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  require(used == text.size() && !text.empty() && value >= low && value <= high,
          option + "=" + text + ": must be a whole number from " + std::to_string(low) + " to " + std::to_string(high));
  return value;
}

}  // namespace

void check_kokkos_options(const std::vector<std::string>& kokkos_args) {
  const long max_threads = 4 * std::max(1u, std::thread::hardware_concurrency());
  for (const std::string& arg : kokkos_args) {
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const auto known = known_kokkos_options().find(name);
    require(known != known_kokkos_options().end(),
            "unknown Kokkos option '" + name + "' for Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                std::to_string(KOKKOS_VERSION / 100 % 100) + " (see --kokkos-help)");
    if (known->second == Value::none) {
      require(equals == std::string::npos, name + " takes no value");
      continue;
    }
    require(equals != std::string::npos, name + " needs a value: " + name + "=VALUE");
    const std::string value = arg.substr(equals + 1);
    switch (known->second) {
      case Value::threads: parse_count(name, value, 1, max_threads); break;
      case Value::device: parse_count(name, value, 0, 255); break;
      case Value::device_count: {  // N or N,M: N devices, M of them skipped
        const auto comma = value.find(',');
        parse_count(name, value.substr(0, comma), 1, 256);
        if (comma != std::string::npos) parse_count(name, value.substr(comma + 1), 0, 255);
        break;
      }
      case Value::mapping:
        require(value == "random" || value == "mpi_rank", name + "=" + value + ": use random or mpi_rank");
        break;
      default: require(!value.empty(), name + " needs a value: " + name + "=VALUE");
    }
  }
}

Session::Session(const std::vector<std::string>& kokkos_args) : args_{"pk"} {
  check_kokkos_options(kokkos_args);
  require_spaces_startable();
  args_.insert(args_.end(), kokkos_args.begin(), kokkos_args.end());
  for (auto& arg : args_) argv_.push_back(arg.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
  guard_ = std::make_unique<Kokkos::ScopeGuard>(argc_, argv_.data());
}

}  // namespace pk
