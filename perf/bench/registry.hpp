#pragma once
// The plug-in interface of pk-bench. A benchmark is a type with
//   static constexpr const char* kernel, description;
//   template <class Space> std::vector<Result> run(const Space&, const Context&) const;
// registered once with PK_REGISTER_BENCHMARK(Type); pk-bench runs it on every selected
// space, after measuring that space's copy bandwidth, and writes one JSON per result.
#include <pk/app/space_selection.hpp>
#include <pk/core/timing.hpp>
#include <probes/copy_bandwidth.hpp>

#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace pk::bench {

enum class Size { tiny, small, full };  // tests, the default problem, the paper's problem

struct Context {
  Size size = Size::small;
  CopyBandwidth copy;      // measured on this space in this run
  std::regex cases{".*"};  // pk-bench --case: the cases to run
  // Whether case `name` is asked for; benchmarks skip the others before measuring them.
  bool wants(const std::string& name) const { return std::regex_search(name, cases); }
};

struct Result {
  std::string case_name;
  std::map<std::string, double> metrics;  // flat, named numbers
  std::string figure;                     // the metric compared with its limit
  std::string limit;                      // what the limit is, in words; empty: none (not rated)
  double limit_ratio = 0;                 // figure / limit
  bool higher_is_better = true;           // a rate; false for a time or a size
};

// The timed repeats behind a record's figure: how many, the fastest, median and slowest, and
// their spread ((slowest - fastest) / median), which the report flags above 10 %.
inline void add_repeats(std::map<std::string, double>& metrics, const RepeatedSeconds& timed) {
  metrics["repeats"] = timed.repeats;
  metrics["repeat_seconds_min"] = timed.min;
  metrics["repeat_seconds_median"] = timed.median;
  metrics["repeat_seconds_max"] = timed.max;
  metrics["repeat_spread"] = timed.spread();
}

struct Benchmark {
  std::string kernel;
  std::string description;
  std::map<std::string, std::function<std::vector<Result>(const Context&)>> run_on;  // by space name
};

std::vector<Benchmark>& registry();

template <class Bench>
struct Registration {
  Registration() {
    Benchmark entry{Bench::kernel, Bench::description, {}};
    for_each_space_type([&](auto tag) {
      using Space = typename decltype(tag)::type;
      entry.run_on[SpaceTraits<Space>::name] = [](const Context& c) { return Bench{}.run(Space{}, c); };
    });
    registry().push_back(std::move(entry));
  }
};

}  // namespace pk::bench

#define PK_REGISTER_BENCHMARK(Type) \
  static const ::pk::bench::Registration<Type> pk_bench_registration_##Type {}
