#include <pk/core/atomic_file.hpp>
#include <pk/core/interrupt.hpp>

#include <time.h>
#include <unistd.h>

#include <csignal>

namespace pk {

namespace {

volatile std::sig_atomic_t received_signal = 0;
volatile std::sig_atomic_t received_at = 0;  // CLOCK_MONOTONIC seconds
volatile std::sig_atomic_t checkpoint_signal = 0;

std::sig_atomic_t monotonic_seconds() {  // clock_gettime is async-signal-safe
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::sig_atomic_t>(now.tv_sec);
}

// A second SIGINT or SIGTERM ends the program at once, without the file it was writing. One
// that comes within a second or two of the first is the same request delivered twice (as
// `timeout` and batch systems send it to the process and to its group, and a program with
// several threads takes each copy), not a second one.
extern "C" void on_interrupt(int signal) {
  const std::sig_atomic_t now = monotonic_seconds();
  if (received_signal != 0) {
    if (now - received_at < 2) return;
    remove_unfinished_file();
    ::_exit(128 + signal);
  }
  received_at = now;
  received_signal = signal;
}
extern "C" void on_checkpoint_request(int) { checkpoint_signal = 1; }

}  // namespace

void catch_interrupts() {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  struct sigaction request = {};
  request.sa_handler = on_checkpoint_request;
  request.sa_flags = SA_RESTART;  // any number of requests; system calls carry on
  sigemptyset(&request.sa_mask);
  sigaction(SIGUSR1, &request, nullptr);
}

bool interrupted() { return received_signal != 0; }

int interrupted_status() { return 128 + received_signal; }

bool take_checkpoint_request() {
  const bool requested = checkpoint_signal != 0;
  checkpoint_signal = 0;
  return requested;
}

}  // namespace pk
