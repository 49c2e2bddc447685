#pragma once
// Kokkos' lifetime in a program: checks that every compiled-in backend can start on this
// machine (pk::Error if not), then initialises Kokkos and finalises it on destruction.
#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace pk {

// Refuses --kokkos-* options that this Kokkos does not read or whose value is out of range
// (pk::Error), before Kokkos sees them: Kokkos itself aborts, crashes or silently ignores
// some. Kokkos 4 reads --kokkos-num-threads, --kokkos-device-id, --kokkos-map-device-id-by,
// --kokkos-print-configuration, --kokkos-disable-warnings, --kokkos-tune-internals;
// Kokkos 3.4 reads --kokkos-threads, --kokkos-numa, --kokkos-device-id,
// --kokkos-num-devices, --kokkos-disable-warnings, --kokkos-tune-internals; both
// --kokkos-help and the --kokkos-tools-* options. Threads: 1 to 4 x the hardware threads;
// device ids: 0 to 255.
void check_kokkos_options(const std::vector<std::string>& kokkos_args);

// Refuses the environment variables this Kokkos reads (KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID,
// ...) with a value it cannot parse or out of the ranges above (pk::Error): Kokkos aborts on
// some and silently skips others.
void check_kokkos_environment();

class Session {
 public:
  // kokkos_args: options for Kokkos itself (--kokkos-num-threads=..., ...), checked first,
  // and Kokkos' environment variables.
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
