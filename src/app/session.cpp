#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

namespace pk {

namespace {

enum class Value { none, flag, threads, device, device_count, device_list, text, mapping };

// The options this Kokkos reads, and the value each takes; the deprecated spellings that
// Kokkos 3.4 still reads with a warning are left out, so that one spelling works.
const std::map<std::string, Value>& known_kokkos_options() {
  static const std::map<std::string, Value> options = {
    {"--kokkos-help", Value::none},
    {"--kokkos-tools-args", Value::text},
    {"--kokkos-tools-help", Value::none},
    {"--kokkos-device-id", Value::device},
#if KOKKOS_VERSION >= 40000
    {"--kokkos-num-threads", Value::threads},
    {"--kokkos-map-device-id-by", Value::mapping},
    {"--kokkos-disable-warnings", Value::flag},
    {"--kokkos-tune-internals", Value::flag},
    {"--kokkos-print-configuration", Value::flag},
    {"--kokkos-tools-libs", Value::text},
#else
    {"--kokkos-threads", Value::threads},
    {"--kokkos-numa", Value::threads},
    {"--kokkos-num-devices", Value::device_count},
    {"--kokkos-disable-warnings", Value::none},
    {"--kokkos-tune-internals", Value::none},
    {"--kokkos-tools-library", Value::text},
#endif
  };
  return options;
}

// The other Kokkos version's spelling of an option this one reads under another name
// (Kokkos 4 warns about and ignores --kokkos-threads, Kokkos 3.4 ignores --kokkos-num-threads).
std::string spelled_here(const std::string& name) {
#if KOKKOS_VERSION >= 40000
  if (name == "--kokkos-threads") return "--kokkos-num-threads";
  if (name == "--kokkos-tools-library") return "--kokkos-tools-libs";
#else
  if (name == "--kokkos-num-threads") return "--kokkos-threads";
  if (name == "--kokkos-tools-libs") return "--kokkos-tools-library";
#endif
  return "";
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

// Refuses `value` of the option or variable `name` unless it is of the kind Kokkos reads.
void check_value(const std::string& name, Value kind, const std::string& value) {
  const long max_threads = 4 * std::max(1u, std::thread::hardware_concurrency());
  switch (kind) {
    case Value::threads:
      parse_count(name, value, 1, max_threads);
      break;
    case Value::device:
      parse_count(name, value, 0, 255);
      break;
    case Value::device_count: {  // N or N,M: N devices, M of them skipped
      const auto comma = value.find(',');
      parse_count(name, value.substr(0, comma), 1, 256);
      if (comma != std::string::npos) parse_count(name, value.substr(comma + 1), 0, 255);
      break;
    }
    case Value::device_list: {  // ids separated by commas
      std::size_t begin = 0;
      for (std::size_t comma; (comma = value.find(',', begin)) != std::string::npos; begin = comma + 1)
        parse_count(name, value.substr(begin, comma - begin), 0, 255);
      parse_count(name, value.substr(begin), 0, 255);
      break;
    }
    case Value::flag: {  // Kokkos 4 reads --kokkos-FLAG=yes|no (any case) too
      std::string lower = value;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      require(lower == "yes" || lower == "true" || lower == "1" || lower == "no" || lower == "false" || lower == "0",
              name + "=" + value + ": use yes, no, true, false, 1 or 0");
      break;
    }
    case Value::mapping:
      require(value == "random" || value == "mpi_rank", name + "=" + value + ": use random or mpi_rank");
      break;
    default:
      require(!value.empty(), name + " needs a value: " + name + "=VALUE");
  }
}

// The environment variables this Kokkos reads with a value it parses: Kokkos aborts, throws
// or silently skips what it cannot parse.
const std::map<std::string, Value>& kokkos_environment() {
  static const std::map<std::string, Value> variables = {
    {"KOKKOS_NUM_THREADS", Value::threads},
    {"KOKKOS_DEVICE_ID", Value::device},
    {"KOKKOS_DISABLE_WARNINGS", Value::flag},
    {"KOKKOS_TUNE_INTERNALS", Value::flag},
#if KOKKOS_VERSION >= 40000
    {"KOKKOS_MAP_DEVICE_ID_BY", Value::mapping},
    {"KOKKOS_PRINT_CONFIGURATION", Value::flag},
    {"KOKKOS_VISIBLE_DEVICES", Value::device_list},
#else
    {"KOKKOS_NUMA", Value::threads},
    {"KOKKOS_NUM_DEVICES", Value::device_count},
    {"KOKKOS_SKIP_DEVICE", Value::device},
#endif
  };
  return variables;
}

}  // namespace

void check_kokkos_options(const std::vector<std::string>& kokkos_args) {
  for (const std::string& arg : kokkos_args) {
    const auto equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const auto known = known_kokkos_options().find(name);
    if (known == known_kokkos_options().end()) {
      const std::string here = spelled_here(name);
      throw Error("unknown Kokkos option '" + name + "' for Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                  std::to_string(KOKKOS_VERSION / 100 % 100) +
                  (here.empty() ? " (see --kokkos-help)" : ": it reads " + here));
    }
    if (known->second == Value::flag && equals == std::string::npos) continue;
    if (known->second == Value::none) {
      require(equals == std::string::npos, name + " takes no value");
      continue;
    }
    require(equals != std::string::npos, name + " needs a value: " + name + "=VALUE");
    check_value(name, known->second, arg.substr(equals + 1));
  }
}

void check_kokkos_environment() {
  for (const auto& [variable, kind] : kokkos_environment())
    if (const char* value = std::getenv(variable.c_str())) check_value("environment variable " + variable, kind, value);
}

Session::Session(const std::vector<std::string>& kokkos_args) : args_{"pk"} {
  check_kokkos_options(kokkos_args);
  check_kokkos_environment();
  require_spaces_startable();
  args_.insert(args_.end(), kokkos_args.begin(), kokkos_args.end());
  for (auto& arg : args_) argv_.push_back(arg.data());
  argv_.push_back(nullptr);
  argc_ = static_cast<int>(args_.size());
  guard_ = std::make_unique<Kokkos::ScopeGuard>(argc_, argv_.data());
}

}  // namespace pk
