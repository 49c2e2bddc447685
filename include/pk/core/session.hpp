#pragma once
// Kokkos' lifetime in a program: checks that every compiled-in backend can start on this
// machine (pk::Error if not), then initialises Kokkos and finalises it on destruction.
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace pk {

class Session {
 public:
  // kokkos_args: options for Kokkos itself (--kokkos-num-threads=..., ...).
  explicit Session(const std::vector<std::string>& kokkos_args = {});
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

 private:
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  int argc_ = 0;
  std::unique_ptr<Kokkos::ScopeGuard> guard_;
};

}  // namespace pk
