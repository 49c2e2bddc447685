#pragma once
// SIGINT (Ctrl-C) and SIGTERM stop a long run at its next safe point instead of killing it:
// the handler only sets a flag, which the program polls between steps; it then writes what
// it has, marked interrupted, and exits with interrupted_status(). A second signal ends
// the program at once (files are still whole: see atomic_file.hpp).
namespace pk {

// Installs the handlers for SIGINT and SIGTERM.
void catch_interrupts();

// True once SIGINT or SIGTERM arrived.
bool interrupted();

// The exit status of an interrupted run: 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
int interrupted_status();

}  // namespace pk
