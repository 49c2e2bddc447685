#include <pk/core/atomic_file.hpp>
#include <pk/core/checkpoint_schedule.hpp>
#include <pk/core/error.hpp>
#include <pk/core/interrupt.hpp>

#include <algorithm>
#include <cmath>

namespace pk {

void check_checkpoint_options(const CheckpointOptions& o) {
  require(o.every >= 0, "--checkpoint-every ", o.every, ": must be >= 0 (0: not by count)");
  require(std::isfinite(o.seconds) && o.seconds >= 0, "--checkpoint-seconds ", o.seconds,
          ": must be >= 0 (0: not by time)");
  require(!o.path.empty() || (o.every == 0 && o.seconds == 0),
          "--checkpoint-every and --checkpoint-seconds need --checkpoint FILE");
  if (!o.path.empty()) require_writable_file_folder(o.path, "--checkpoint");
}

CheckpointSchedule::CheckpointSchedule(const CheckpointOptions& options, std::int64_t step)
    : enabled_(!options.path.empty()),
      every_(options.every),
      last_(step),
      seconds_(options.seconds),
      since_(std::chrono::steady_clock::now()) {}

unsigned CheckpointSchedule::due(std::int64_t step, bool clock) {
  unsigned what = interrupted() ? stop : 0;
  if (!enabled_) return what;
  const bool requested = take_checkpoint_request();
  const bool counted = every_ > 0 && step / every_ > last_ / every_;
  const bool timed = clock && seconds_ > 0 &&
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count() >= seconds_;
  if (requested || counted || timed || (what & stop)) what |= checkpoint;
  if (what & checkpoint) {
    last_ = step;
    since_ = std::chrono::steady_clock::now();
  }
  return what;
}

std::int64_t CheckpointSchedule::steps_to_next(std::int64_t step, std::int64_t limit) const {
  if (!enabled_ || every_ <= 0) return limit;
  return std::min(limit, every_ - step % every_);
}

}  // namespace pk
