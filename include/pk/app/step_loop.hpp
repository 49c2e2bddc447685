#pragma once
// The loop of a run of a fixed number of time steps (pk-lbm), on one process or on every rank
// of a distributed run: steps in chunks that grow until one takes about 0.2 s (on the slowest
// rank), cut where outputs or checkpoints fall due; after each chunk the outputs due, the
// checkpoint schedule (a signal writes a checkpoint and stops the run) and progress on one line.
#include <pk/core/checkpoint_schedule.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pk {

// When outputs written every `every` steps (0: never) are due: at a multiple, at the run's
// start (not a restart's), and at its end when that is not a multiple.
enum class When { start, step, end };
bool output_due(std::int64_t every, std::int64_t step, When when);

// What a run does in the loop. The ranks of a distributed run agree through `slowest` and
// `any_rank`; one process leaves them as they are.
struct StepLoop {
  std::function<std::int64_t()> step;           // the steps taken (a restart's count from its checkpoint)
  std::function<void(std::int64_t n)> advance;  // n steps, finished (fenced)
  std::function<void(When)> write_outputs;      // the outputs due (output_due) at step()
  std::function<void()> write_checkpoint;       // none when there are no checkpoints
  std::function<std::string(double)> progress;  // a line, given the compute seconds so far; none: quiet
  std::vector<std::int64_t> output_every;       // the outputs' cadences (0: never)
  std::function<double(double)> slowest = [](double seconds) { return seconds; };
  std::function<unsigned(unsigned)> any_rank = [](unsigned due) { return due; };
  bool keeps_the_clock = true;  // whether this rank's clock decides checkpoints by time
};

struct StepLoopEnd {
  double compute_seconds = 0;  // this process's time in advance()
  bool stopped = false;        // by a signal (on any rank)
};

// Runs `loop` until step() reaches `last_step` or a signal stops it, then writes the outputs
// due at the end and a last checkpoint.
StepLoopEnd run_steps(const StepLoop& loop, std::int64_t last_step, CheckpointSchedule& schedule);

}  // namespace pk
