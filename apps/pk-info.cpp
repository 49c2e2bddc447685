// pk-info: which execution spaces this build holds, whether each can run here, and the
// hardware behind each; with --tuning, the launch choices kept for this build.
#include <pk/app/cli.hpp>
#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/app/table.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/tuning.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace {

void list_tuning_cache() {
  const std::string folder = pk::tuning_cache_folder();
  if (folder.empty()) {
    std::printf("tuning cache: off (PK_TUNING_CACHE=%s): choices last for one process\n",
                std::getenv("PK_TUNING_CACHE"));
    return;
  }
  const std::vector<pk::StoredChoice> choices = pk::stored_choices();
  std::printf("tuning cache: %s, %zu choices of this build (%s)\n\n", folder.c_str(), choices.size(),
              pk::build_commit().c_str());
  pk::Table table({"device", "choice", "key", "timings (candidate: median s [fastest, slowest])", "date"});
  for (const pk::StoredChoice& c : choices)
    table.add_row({c.device, std::to_string(c.choice), c.key, c.evidence, c.date});
  table.print(std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  pk::bind_openmp_threads_by_default(argv);
  return pk::run_app("pk-info", [&] {
    CLI::App cli{"Shows the execution spaces of this PortableKernels build and the devices behind them."};
    bool tuning = false;
    cli.add_flag("--tuning", tuning, "list the choices pk::autotune keeps for this build (the tuning cache)");
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;
    if (tuning) {
      list_tuning_cache();
      return 0;
    }

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
