#include <pk/app/process.hpp>
#include <pk/core/error.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace pk {

namespace {

// Starts argv (its output to /dev/null when `quiet`) and waits for it: its status as
// run_program() gives it, or -1 with `failed` set to the errno when it cannot start.
int spawn_and_wait(const std::vector<std::string>& argv, bool quiet, int& failed) {
  require(!argv.empty(), "run_program: no program given");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  pid_t pid = 0;
  failed = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    require(errno == EINTR, "waiting for " + argv[0] + " failed: " + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int run_program(const std::vector<std::string>& argv) {
  int failed = 0;
  const int status = spawn_and_wait(argv, false, failed);
  require(failed == 0, "cannot start " + argv[0] + ": " + std::strerror(failed));
  return status;
}

bool program_succeeds(const std::vector<std::string>& argv) {
  int failed = 0;
  return spawn_and_wait(argv, true, failed) == 0 && failed == 0;
}

namespace {
// Set in the environment of the program's second start, so that its records can say who chose.
constexpr const char* binding_marker = "PK_OPENMP_BINDING_SET";
}  // namespace

void bind_openmp_threads_by_default(char** argv) {
  if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) return;
  // An MPI launcher binds each rank, or deliberately does not (--bind-to none): ranks that
  // each spread over the whole node would share its first CPUs.
  for (const char* launcher : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
    if (std::getenv(launcher)) return;
  ::setenv("OMP_PROC_BIND", "spread", 1);
  ::setenv("OMP_PLACES", "threads", 1);
  ::setenv(binding_marker, "1", 1);
  ::execv("/proc/self/exe", argv);
  ::unsetenv("OMP_PROC_BIND");  // no /proc: the runtime already read the environment without them
  ::unsetenv("OMP_PLACES");
  ::unsetenv(binding_marker);
}

void load_gpu_kernels_at_start() { ::setenv("CUDA_MODULE_LOADING", "EAGER", 0); }

std::string openmp_binding() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  if (!bind && !places) return "unset (the runtime's default)";
  const std::string setting = std::string(bind ? bind : "-") + "/" + (places ? places : "-");
  return setting + (std::getenv(binding_marker) ? " (set by pk)" : " (the user's)");
}

std::string openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy ? policy : "unset (the runtime's default)";
}

}  // namespace pk
