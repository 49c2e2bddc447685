#include <pk/core/interrupt.hpp>

#include <csignal>

namespace pk {

namespace {

volatile std::sig_atomic_t received_signal = 0;
volatile std::sig_atomic_t checkpoint_signal = 0;

extern "C" void on_interrupt(int signal) { received_signal = signal; }
extern "C" void on_checkpoint_request(int) { checkpoint_signal = 1; }

}  // namespace

void catch_interrupts() {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  action.sa_flags = SA_RESETHAND;  // the second signal takes its default action: ends the program
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

bool checkpoint_requested() { return checkpoint_signal != 0; }

bool take_checkpoint_request() {
  const bool requested = checkpoint_signal != 0;
  checkpoint_signal = 0;
  return requested;
}

}  // namespace pk
