// Test main of the MPI suite: MPI, then Kokkos on this rank's device, then the tests on
// every rank. A test that fails on any rank fails the run on every rank.
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  setenv("PK_MPI", "1", 0);  // the suite needs MPI, also when started on its own (one rank)
  pk::mpi::Environment mpi(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  pk::mpi::Communicator world;
  std::vector<std::string> kokkos_args;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--kokkos-", 0) == 0) kokkos_args.emplace_back(argv[i]);
  return pk::run_app("pk-tests-mpi", [&] {
    pk::Session session(pk::mpi::rank_kokkos_arguments(world, kokkos_args));
    int failed = RUN_ALL_TESTS() != 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, world.get());
    return any;
  });
}
