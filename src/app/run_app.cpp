#include <pk/app/run_app.hpp>
#include <pk/core/atomic_file.hpp>
#include <pk/core/error.hpp>

#include <exception>
#include <iostream>

namespace pk {

namespace {

// A message as one line: user input quoted in it may hold newlines or control bytes.
std::string one_line(std::string message) {
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 32) c = ' ';
  return message;
}

}  // namespace

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

int run_app(const std::string& program, const std::function<int()>& body) {
  try {
    const int status = body();
    require_stdout_written();
    return status;
  } catch (const Error& e) {
    std::cerr << program << ": error: " << one_line(e.what()) << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << one_line(e.what()) << '\n';
    return 1;
  }
}

}  // namespace pk
