#include <pk/app/space_selection.hpp>
#include <pk/core/error.hpp>

#include <algorithm>
#include <iterator>
#include <sstream>

namespace pk {

std::vector<SpaceStatus> enabled_space_statuses() {
  std::vector<SpaceStatus> statuses;
  for_each_space_type([&](auto tag) {
    using Traits = SpaceTraits<typename decltype(tag)::type>;
    statuses.push_back({Traits::name, Traits::unavailable_reason()});
  });
  return statuses;
}

namespace {

std::string enabled_names(const std::vector<SpaceStatus>& statuses) {
  std::string names;
  for (const auto& s : statuses) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

}  // namespace

std::vector<std::string> select_spaces(const std::string& request) {
  const auto statuses = enabled_space_statuses();
  const std::string choices = " (use " + backend_choices() + " or all)";
  std::vector<std::string> selected;
  if (request == "all") {
    for (const auto& s : statuses)
      if (s.available()) selected.push_back(s.name);
    require(!selected.empty(), "no execution space can run on this machine");
    return selected;
  }
  std::stringstream items(request);
  std::string name;
  while (std::getline(items, name, ',')) {
    require(name != "all", "'all' cannot be combined with other spaces (got '" + request + "')");
    require(!name.empty(), "empty space name in '" + request + "'" + choices);
    const auto it = std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.name == name; });
    if (it == statuses.end()) {
      const bool known = std::find(std::begin(backend_names), std::end(backend_names), name) != std::end(backend_names);
      throw Error(known ? "space '" + name + "' is not enabled in this build (enabled: " + enabled_names(statuses) + ")"
                        : "unknown space '" + name + "'" + choices);
    }
    require(it->available(), "space '" + name + "' is unavailable: " + it->unavailable_reason);
    if (std::find(selected.begin(), selected.end(), name) == selected.end()) selected.push_back(name);
  }
  require(!selected.empty(), "no space named" + choices);
  return selected;
}

void require_spaces_startable() {
  for (const auto& s : enabled_space_statuses())
    require(s.available(), "space '" + s.name + "' is unavailable: " + s.unavailable_reason +
                               ". This binary holds the " + s.name +
                               " backend, and Kokkos must start every backend it holds; on this machine "
                               "use a build without it (./pk builds build/openmp).");
}

}  // namespace pk
