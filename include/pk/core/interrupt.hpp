#pragma once
// SIGINT (Ctrl-C) and SIGTERM stop a long run at its next safe point instead of killing it:
// the handler only sets a flag, which the program polls between steps; it then writes what
// it has (and its checkpoint, when it keeps one: checkpoint.hpp), marked interrupted, and
// exits with interrupted_status(). A second SIGINT or SIGTERM, 2 s or more after the first,
// ends the program at once (files are still whole: see atomic_file.hpp). SIGUSR1 asks for a checkpoint at the next
// safe point, and the run goes on.
namespace pk {

// Installs the handlers for SIGINT, SIGTERM and SIGUSR1.
void catch_interrupts();

// True once SIGINT or SIGTERM arrived.
bool interrupted();

// The exit status of an interrupted run: 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
int interrupted_status();

// Whether SIGUSR1 arrived since the last call, which clears it.
bool take_checkpoint_request();

}  // namespace pk
