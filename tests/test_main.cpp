// Test main: Kokkos lives for the whole run, as in every PortableKernels program.
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Choices timed in one test run must not decide the next run's (tests that keep choices
  // name their own folder).
  ::setenv("PK_TUNING_CACHE", "off", 0);
  // Listing needs no Kokkos, and ctest's test discovery would read Kokkos' start-up
  // warnings (3.4.01 prints them on stdout) as test names.
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  return pk::run_app("pk-tests", [&] {
    pk::require_spaces_startable();
    Kokkos::ScopeGuard kokkos(argc, argv);
    return RUN_ALL_TESTS();
  });
}
