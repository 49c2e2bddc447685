// The copy-bandwidth probe as a benchmark: RangePolicy copy, Kokkos::deep_copy and an update in
// place, each against the best of the three.
#include "registry.hpp"

namespace pk::bench {

struct CopyBench {
  static constexpr const char* kernel = "copy";
  static constexpr const char* description =
      "copy bandwidth, RangePolicy kernel, Kokkos::deep_copy and an update in place";

  template <class Space>
  std::vector<Result> run(const Space&, const Context& c) const {
    const double bytes = static_cast<double>(c.copy.bytes_per_copy);
    const double limit = c.copy.limit_gbs();
    auto result = [&](const char* name, double gbs) {
      return Result{name,
                    {{"bandwidth_gbs", gbs}, {"bytes_per_copy", bytes}, {"limit_gbs", limit}},
                    "bandwidth_gbs",
                    "best copy",
                    gbs / limit};
    };
    return {result("range-policy", c.copy.range_policy_gbs), result("deep-copy", c.copy.deep_copy_gbs),
            result("in-place", c.copy.in_place_gbs)};
  }
};
PK_REGISTER_BENCHMARK(CopyBench);

}  // namespace pk::bench
