#pragma once
// What every command-line program shares: its command line as one string, and the
// conversion of errors into one line on stderr and an exit status.
//
// Exit status of every program: 0 done; 2 refused (bad input: options, files, sizes) or
// its output could not be written; 130 / 143 stopped by SIGINT / SIGTERM (interrupt.hpp),
// after writing its summary marked interrupted; 1 an internal error.
#include <functional>
#include <string>

namespace pk {

// argv joined with spaces, as recorded in results.
std::string command_line(int argc, char** argv);

// Runs body() and checks that its standard output was written; a pk::Error becomes
// "<program>: error: <message>" (one line) and exit status 2, any other exception
// "<program>: internal error: ..." and status 1.
int run_app(const std::string& program, const std::function<int()>& body);

}  // namespace pk
