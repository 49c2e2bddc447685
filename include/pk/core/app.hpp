#pragma once
// What every command-line program shares: its command line as one string, and the
// conversion of errors into one line on stderr and an exit status.
#include <functional>
#include <string>

namespace pk {

// argv joined with spaces, as recorded in results.
std::string command_line(int argc, char** argv);

// Runs body(); a pk::Error becomes "<program>: error: <message>" and exit status 2, any
// other exception "<program>: internal error: ..." and status 1.
int run_app(const std::string& program, const std::function<int()>& body);

}  // namespace pk
