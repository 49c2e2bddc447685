#include <pk/lbm/checkpoint.hpp>

#include <cstdio>

namespace pk::lbm {

void add_run_options(CheckpointHeader& header, const Geometry& geometry, const Parameters& p,
                     const std::string& precision) {
  char cells[16];
  std::snprintf(cells, sizeof cells, "%08x",
                static_cast<unsigned>(crc32(geometry.cells().data(), geometry.cells().size() * sizeof(CellType))));
  header.options.emplace_back("lattice", std::to_string(geometry.nx()) + "x" + std::to_string(geometry.ny()) + "x" +
                                             std::to_string(geometry.nz()) + " periodic " +
                                             std::to_string(geometry.periodic(0)) +
                                             std::to_string(geometry.periodic(1)) +
                                             std::to_string(geometry.periodic(2)) + " cells-crc32 " + cells);
  header.options.emplace_back("tau", exact_number(p.tau));
  header.options.emplace_back("inlet-density", exact_number(p.inlet_density));
  header.options.emplace_back("outlet-density", exact_number(p.outlet_density));
  header.options.emplace_back("pattern", streaming_name(p.streaming));
  header.options.emplace_back("precision", precision);
  header.options.emplace_back("max-mach", exact_number(p.max_mach));
  header.options.emplace_back("check-every", std::to_string(p.check_interval));
}

Parameters restart_parameters(Parameters parameters, const CheckpointHeader& header) {
  const std::string& aa = header.value("aa-storage");
  const std::string& ab = header.value("ab-stores");
  require((aa == "shifted" || aa == "plain") && (ab == "streaming" || ab == "cached"),
          "checkpoint: unknown storage choices '", aa, "', '", ab, "'");
  parameters.aa_storage = aa == "shifted" ? AaStorage::shifted : AaStorage::plain;
  parameters.ab_stores = ab == "streaming" ? AbStores::streaming : AbStores::cached;
  return parameters;
}

}  // namespace pk::lbm
