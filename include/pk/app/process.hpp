#pragma once
// Starting another program without a shell: the arguments go to it as they are, so no file
// name or option value can run a command.
#include <string>
#include <vector>

namespace pk {

// Runs argv[0] (searched on PATH) with argv and waits for it. Returns its exit status, or
// 128 + the signal number when a signal ended it. Throws pk::Error when it cannot start.
int run_program(const std::vector<std::string>& argv);

// Whether argv[0] starts and exits with status 0, its output discarded: a probe, such as
// {"python3", "-c", "import matplotlib"}.
bool program_succeeds(const std::vector<std::string>& argv);

}  // namespace pk
