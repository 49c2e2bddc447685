#include <pk/core/interrupt.hpp>

#include <csignal>

namespace pk {

namespace {

volatile std::sig_atomic_t received_signal = 0;

extern "C" void on_interrupt(int signal) { received_signal = signal; }

}  // namespace

void catch_interrupts() {
  struct sigaction action = {};
  action.sa_handler = on_interrupt;
  action.sa_flags = SA_RESETHAND;  // the second signal takes its default action: ends the program
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupted() { return received_signal != 0; }

int interrupted_status() { return 128 + received_signal; }

}  // namespace pk
