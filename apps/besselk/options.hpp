#pragma once
// pk-matern's command line, read and checked before Kokkos starts, with the data it names.
#include <pk/besselk/fit_journal.hpp>
#include <pk/besselk/likelihood.hpp>
#include <pk/besselk/matern.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pk::besselk::app {

namespace bk = pk::besselk;

struct Setup {
  std::string mode = "fit", data_path, out = "pk-results";
  unsigned long seed = 42;
  bk::MaternParameters params, start;
  int tile = bk::default_tile_size, gpus = 0, max_evaluations = bk::OptimizerSettings{}.max_evaluations;
  double tolerance = 1e-5;
  bool profile_variance = false, from_file = false;
  std::string checkpoint, restart;  // the fit's journal (fit_journal.hpp)
  std::shared_ptr<bk::FitJournal> journal;
  bk::MaternData data;
  std::vector<std::string> spaces, kokkos_args;
};

// Nothing when --help was answered; pk::Error for bad input.
std::optional<Setup> parse(int argc, char** argv);

}  // namespace pk::besselk::app
