// Times one choice with pk::autotune, as a program would, and prints it with the trials this
// process ran: tests/cli/tuning_cache.py runs it as separate processes sharing a tuning cache.
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/core/tuning.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  return pk::run_app("tuning-probe", [&] {
    pk::require(argc == 2, "usage: tuning-probe KEY");
    pk::Session session;
    const Kokkos::DefaultHostExecutionSpace space;
    Kokkos::View<double*, Kokkos::HostSpace> out("pk::test::probe_out", 1 << 12);
    // Work proportional to `units`: 1 is the fastest candidate by far, 8 the default.
    const int choice = pk::autotune(space, argv[1], {8, 1}, [&](int units) {
      Kokkos::parallel_for("pk::test::probe",
                           Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(space, 0, out.extent(0)), [=](int i) {
                             double x = i;
                             for (int k = 0; k < 2000 * units; ++k) x = x * 0.999 + 1;
                             out(i) = x;
                           });
    });
    std::printf("choice %d trials %ld\n", choice, pk::autotune_trials());
    return 0;
  });
}
