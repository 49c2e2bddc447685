#pragma once
// Choosing execution spaces at run time: `--space NAME[,NAME...]|all` (NAME: one of
// pk::backend_names that the build holds) and the checks that must pass before Kokkos is
// initialised.
#include <pk/core/spaces.hpp>

#include <string>
#include <vector>

namespace pk {

struct SpaceStatus {
  std::string name;
  std::string unavailable_reason;  // empty when the space can run here
  bool available() const { return unavailable_reason.empty(); }
};

// Every space compiled into this build, with whether it can run on this machine.
std::vector<SpaceStatus> enabled_space_statuses();

// Resolves a request ("all", one name, or a comma-separated list) to space names.
// "all" means every enabled space that can run here; a space named explicitly must be
// enabled and available. Throws pk::Error otherwise.
std::vector<std::string> select_spaces(const std::string& request);

// Kokkos initialises every backend compiled in, so a build holding a GPU backend cannot
// start on a machine without its GPU. Throws pk::Error with that explanation before Kokkos
// would abort.
void require_spaces_startable();

// Calls f(SpaceTag<Space>{}) for every enabled space, in EnabledSpaces order.
template <class F, class... Spaces>
void for_each_space_type(SpaceList<Spaces...>, F&& f) {
  (f(SpaceTag<Spaces>{}), ...);
}
template <class F>
void for_each_space_type(F&& f) {
  for_each_space_type(EnabledSpaces{}, f);
}

// Calls f(space) with a default instance of each space whose name is in `names`.
template <class F>
void for_each_selected_space(const std::vector<std::string>& names, F&& f) {
  for_each_space_type([&](auto tag) {
    using Space = typename decltype(tag)::type;
    for (const auto& name : names)
      if (name == SpaceTraits<Space>::name) f(Space{});
  });
}

}  // namespace pk
