#pragma once
// What a GBEES run reports: the state after each batch of steps, the run's statistics and
// the sums of an update.
#include <cstddef>
#include <cstdint>

namespace pk::gbees {

// What an observer of Solver::advance_to sees after each batch of steps.
struct StepInfo {
  double time = 0;
  double dt = 0;
  std::int64_t step = 0;
  std::int64_t cells = 0;
  double cell_steps = 0;  // Statistics::cell_steps so far (a progress report's rate)
};

struct Statistics {
  std::int64_t steps = 0;
  std::int64_t max_cells = 0;      // over all ranks in a distributed run
  double cell_steps = 0;           // sum over steps of the cells advanced (the paper's "cell computations")
  double pruned_probability = 0;   // removed by pruning (before renormalising)
  double clipped_probability = 0;  // negative undershoots set to zero
  double outflow_probability = 0;  // left through faces of cells below p* with nothing beyond
  std::size_t map_rehashes = 0;    // times the map was rehashed (grown, or shrunk after a prune)
  double peak_bytes = 0;           // grid memory at the largest allocation
};

// The sums of the last update: the total before normalising, the probability clipping
// added and what flowed out of the grid (total = 1 + clipped - outflow).
struct UpdateSums {
  double total = 0, clipped = 0, outflow = 0;
};

}  // namespace pk::gbees
