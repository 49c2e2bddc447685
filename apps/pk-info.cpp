// pk-info: which execution spaces this build holds, whether each can run here, and the
// hardware behind each.
#include <pk/app/cli.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/app/table.hpp>
#include <pk/core/device_info.hpp>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  return pk::run_app("pk-info", [&] {
    CLI::App cli{"Shows the execution spaces of this PortableKernels build and the devices behind them."};
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;

    std::printf("PortableKernels %s on Kokkos %d.%d.%02d\n\n", pk::build_commit().c_str(), KOKKOS_VERSION / 10000,
                KOKKOS_VERSION / 100 % 100, KOKKOS_VERSION % 100);
    pk::Table table({"space", "device"});
    const auto statuses = pk::enabled_space_statuses();
    std::vector<std::string> runnable;
    for (const auto& s : statuses) {
      if (s.available())
        runnable.push_back(s.name);
      else
        table.add_row({s.name, "unavailable: " + s.unavailable_reason});
    }
    if (runnable.size() != statuses.size()) {
      table.print(std::cout);
      pk::require_spaces_startable();
    }
    pk::Session session(*kokkos_args);
    pk::for_each_selected_space(runnable, [&](const auto& space) {
      table.add_row({pk::SpaceTraits<std::decay_t<decltype(space)>>::name, pk::describe_device(space)});
    });
    table.print(std::cout);
    return 0;
  });
}
