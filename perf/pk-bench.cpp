// pk-bench: every kernel on every selected execution space, each figure reported beside
// the copy bandwidth measured on that space in the same run.
#include "bench/registry.hpp"

#include <pk/app/cli.hpp>
#include <pk/app/process.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/table.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/device_info.hpp>
#include <pk/core/error.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/core/memory.hpp>

#include <iostream>
#include <regex>

namespace pk::bench {

std::vector<Benchmark>& registry() {
  static std::vector<Benchmark> benchmarks;
  return benchmarks;
}

namespace {

std::size_t copy_probe_length(Size size) {
  switch (size) {
    case Size::tiny:
      return std::size_t{1} << 20;  // 8 MiB per array
    case Size::small:
      return std::size_t{1} << 24;  // 128 MiB: well past any cache
    case Size::full:
      return std::size_t{1} << 27;  // 1 GiB
  }
  return 0;
}

}  // namespace
}  // namespace pk::bench

int main(int argc, char** argv) {
  pk::bind_openmp_threads_by_default(argv);
  using namespace pk::bench;
  return pk::run_app("pk-bench", [&] {
    std::string space_request = "all", kernel_request = "all", case_request = ".*", out = "pk-results";
    Size size = Size::small;
    bool list = false;
    CLI::App cli{"Runs PortableKernels' kernels on each execution space and reports them against the copy bandwidth."};
    cli.add_option("--space", space_request,
                   pk::backend_choices() + ", a comma-separated list, or all (those that can run here)");
    cli.add_option("--kernel", kernel_request, "a kernel name (see --list), or all");
    cli.add_option("--size", size, "problem size: tiny, small or full")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, Size>{{"tiny", Size::tiny}, {"small", Size::small}, {"full", Size::full}}));
    cli.add_option("--case", case_request, "run only the cases whose name matches this regular expression");
    cli.add_option("--out", out, "directory for the result JSON files");
    cli.add_flag("--list", list, "list the kernels and exit");
    const auto kokkos_args = pk::parse_command_line(cli, argc, argv);
    if (!kokkos_args) return 0;

    if (list) {
      for (const auto& b : registry()) std::cout << b.kernel << "  " << b.description << '\n';
      return 0;
    }
    std::vector<const Benchmark*> chosen;
    for (const auto& b : registry())
      if (kernel_request == "all" || kernel_request == b.kernel) chosen.push_back(&b);
    pk::require(!chosen.empty(), "unknown kernel '" + kernel_request + "' (see --list)");
    std::regex cases;
    try {
      cases = std::regex(case_request);
    } catch (const std::regex_error&) {
      throw pk::Error("--case: '" + case_request + "' is not a regular expression");
    }
    const auto spaces = pk::select_spaces(space_request);
    pk::require_writable_directory(out, "--out");
    for (const auto& s : pk::enabled_space_statuses())
      if (!s.available()) std::cout << "space " << s.name << ": not run, " << s.unavailable_reason << '\n';

    if (pk::compiled_simd_bytes() < pk::cpu_simd_bytes())
      std::cerr << "pk-bench: warning: the host code was built for " << pk::compiled_simd_bytes()
                << "-byte SIMD and this CPU has " << pk::cpu_simd_bytes()
                << "-byte: host figures are not this CPU's (rebuild here with PK_HOST_ARCH=native)\n";
    pk::Session session(*kokkos_args);
    pk::catch_interrupts();  // stops inside a benchmark: after the repetition, case or batch under way
    const std::string command = pk::command_line(argc, argv);
    pk::Table table({"kernel", "case", "space", "figure", "value", "limit", "ratio"});
    pk::for_each_selected_space(spaces, [&](const auto& space) {
      using Space = std::decay_t<decltype(space)>;
      const std::string name = pk::SpaceTraits<Space>::name;
      const std::string device = pk::describe_device(space);
      std::cout << "space " << name << ": " << device << std::endl;
      // A limit the user set (ulimit -v, a cgroup) or a device too small for the size is a
      // refusal naming what fits, as in the programs, not an internal error.
      const pk::MemoryAdvice advice = [&](double usable) {
        return pk::format_number(usable / 1e9, 3) + " GB may be used here: try a smaller --size or fewer --case";
      };
      const auto size_name = std::string(size == Size::tiny ? "tiny" : size == Size::small ? "small" : "full");
      const std::string what = "pk-bench --size " + size_name;
      Context context{
          size,
          pk::refuse_if_out_of_memory(space, what, advice,
                                      [&] { return pk::measure_copy_bandwidth(space, copy_probe_length(size), 20); }),
          cases};
      for (const Benchmark* b : chosen) {
        if (pk::interrupted()) break;
        const pk::CpuTime before = pk::cpu_time();
        const auto results = pk::refuse_if_out_of_memory(space, what + " --kernel " + b->kernel, advice,
                                                         [&] { return b->run_on.at(name)(context); });
        const double stolen = pk::stolen_share(before, pk::cpu_time());
        for (const Result& r : results) {
          if (!context.wants(r.case_name)) continue;  // a benchmark that measured it anyway
          pk::ResultRecord record{b->kernel, r.case_name,       name,     device, command,
                                  r.metrics, pk::interrupted(), r.figure, r.limit};
          if (!r.limit.empty()) record.metrics["limit_ratio"] = r.limit_ratio;
          // A virtual machine's CPUs may be shared with other guests: what they took during the
          // kernel's cases says whether its figures are this machine's.
          if (stolen >= 0) record.metrics["host_stolen_share"] = stolen;
          record.higher_is_better = r.higher_is_better;
          const std::string path = pk::write_result(record, out);
          const bool rated = !r.limit.empty();
          table.add_row({b->kernel, r.case_name, name, r.figure, pk::format_number(r.metrics.at(r.figure)),
                         rated ? r.limit : "none measured", rated ? pk::format_number(r.limit_ratio, 3) : "-"});
          std::cerr << "wrote " << path << '\n';
        }
      }
    });
    std::cout << '\n';
    table.print(std::cout);
    return pk::interrupted() ? pk::interrupted_status() : 0;
  });
}
