#include <pk/core/app.hpp>
#include <pk/core/error.hpp>

#include <exception>
#include <iostream>

namespace pk {

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

int run_app(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    std::cerr << program << ": error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << e.what() << '\n';
    return 1;
  }
}

}  // namespace pk
