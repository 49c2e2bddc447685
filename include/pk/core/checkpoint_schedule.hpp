#pragma once
// When a run writes its checkpoints (checkpoint.hpp): every N steps, every S seconds of wall
// time, at SIGUSR1, and when SIGINT or SIGTERM stops it (interrupt.hpp). The programs'
// options --checkpoint, --checkpoint-every, --checkpoint-seconds and --restart.
#include <chrono>
#include <cstdint>
#include <string>

namespace pk {

struct CheckpointOptions {
  std::string path;        // --checkpoint FILE; empty: no checkpoints
  std::int64_t every = 0;  // --checkpoint-every N steps (or iterations); 0: not by count
  double seconds = 0;      // --checkpoint-seconds S of wall time; 0: not by time
  std::string restart;     // --restart FILE; empty: start from the beginning
};

// Throws pk::Error for a negative interval, or an interval without --checkpoint.
void check_checkpoint_options(const CheckpointOptions& options);

class CheckpointSchedule {
 public:
  static constexpr unsigned checkpoint = 1;  // write a checkpoint now
  static constexpr unsigned stop = 2;        // stop now (after the checkpoint, when there is one)

  // `step`: where the run starts (a restart's step).
  CheckpointSchedule(const CheckpointOptions& options, std::int64_t step);

  // What is due at `step`, a safe point of the run: checkpoint (a multiple of --checkpoint-every
  // passed, --checkpoint-seconds passed on this process's clock when `clock`, SIGUSR1), stop
  // (SIGINT, SIGTERM). Several ranks agree by or-ing their answers (rank 0 keeps the clock).
  unsigned due(std::int64_t step, bool clock = true);

  // Steps from `step` to the next multiple of --checkpoint-every, at most `limit`: a run that
  // advances in chunks ends a chunk there.
  std::int64_t steps_to_next(std::int64_t step, std::int64_t limit) const;

 private:
  bool enabled_;
  std::int64_t every_, last_;
  double seconds_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace pk
