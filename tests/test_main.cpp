// Test main: Kokkos lives for the whole run, as in every PortableKernels program.
#include <pk/core/app.hpp>
#include <pk/core/session.hpp>
#include <pk/core/space_selection.hpp>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return pk::run_app("pk-tests", [&] {
    pk::require_spaces_startable();
    Kokkos::ScopeGuard kokkos(argc, argv);
    return RUN_ALL_TESTS();
  });
}
