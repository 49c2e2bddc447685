#pragma once
// The checkpoint options of the long-running programs, on their command lines. Free of
// Kokkos, like the --config reader of pk-gbees that its fuzz target builds.
#include <pk/core/checkpoint_schedule.hpp>

#include <CLI/CLI.hpp>

#include <string>

namespace pk {

// The checkpoint options every long-running program takes (checkpoint_schedule.hpp); `unit`
// names what --checkpoint-every counts ("steps", "CG iterations").
inline void add_checkpoint_options(CLI::App& cli, CheckpointOptions& options, const std::string& unit) {
  cli.add_option("--checkpoint", options.path,
                 "write checkpoints to FILE: on SIGTERM, SIGINT or SIGUSR1, every --checkpoint-every " + unit +
                     " or --checkpoint-seconds, and at the end (docs/jobs.md)");
  cli.add_option("--checkpoint-every", options.every, unit + " between checkpoints (0: not by count)");
  cli.add_option("--checkpoint-seconds", options.seconds, "wall-clock seconds between checkpoints (0: not by time)");
  cli.add_option("--restart", options.restart, "continue the run a checkpoint FILE holds (the same options)");
}

}  // namespace pk
