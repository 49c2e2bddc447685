#include <pk/app/process.hpp>
#include <pk/core/error.hpp>

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace pk {

int run_program(const std::vector<std::string>& argv) {
  require(!argv.empty(), "run_program: no program given");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int failed = ::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ);
  require(failed == 0, "cannot start " + argv[0] + ": " + std::strerror(failed));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    require(errno == EINTR, "waiting for " + argv[0] + " failed: " + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace pk
