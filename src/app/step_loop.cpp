#include <pk/app/step_loop.hpp>

#include <Kokkos_Timer.hpp>

#include <algorithm>
#include <cstdio>

namespace pk {

bool output_due(std::int64_t every, std::int64_t step, When when) {
  if (every <= 0) return false;
  return when == When::start || (step % every == 0) == (when == When::step);
}

StepLoopEnd run_steps(const StepLoop& loop, std::int64_t last_step, CheckpointSchedule& schedule) {
  StepLoopEnd end;
  double last_report = 0;
  bool reported = false;
  Kokkos::Timer wall;
  std::int64_t chunk = 1;
  while (loop.step() < last_step && !end.stopped) {
    const std::int64_t step = loop.step();
    std::int64_t n = std::min(chunk, last_step - step);
    for (const std::int64_t every : loop.output_every)
      if (every > 0) n = std::min(n, every - step % every);
    n = schedule.steps_to_next(step, n);
    Kokkos::Timer timer;
    loop.advance(n);
    const double seconds = timer.seconds();
    end.compute_seconds += seconds;
    // Bounded: n may stay below chunk where outputs fall due often.
    if (loop.slowest(seconds) < 0.2 && chunk < last_step) chunk *= 2;
    loop.write_outputs(When::step);
    // Signals reach ranks at different times: they agree on what is due.
    const unsigned due = loop.any_rank(schedule.due(loop.step(), loop.keeps_the_clock));
    if (due & CheckpointSchedule::checkpoint) loop.write_checkpoint();
    end.stopped = due & CheckpointSchedule::stop;
    if (loop.progress && wall.seconds() - last_report > 1.0) {
      last_report = wall.seconds();
      reported = true;
      std::fprintf(stderr, "\r%s   ", loop.progress(end.compute_seconds).c_str());
    }
  }
  if (reported) std::fprintf(stderr, "\n");
  loop.write_outputs(When::end);
  loop.write_checkpoint();  // where the run ends or stopped (none when that one exists)
  return end;
}

}  // namespace pk
