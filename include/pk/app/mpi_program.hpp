#pragma once
// The start every distributed program shares: each rank parses the same command line, a
// command line that differs between ranks is refused, and Kokkos starts on the rank's GPU.
//
//   int main(int argc, char** argv) {
//     pk::mpi::Environment mpi(argc, argv);
//     if (mpi.ranks() > 1) return pk::mpi::run_program("pk-x", argc, argv, parse, run);
//     ...
//   }
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/core/interrupt.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>
#include <pk/mpi/devices.hpp>

#include <functional>
#include <optional>
#include <string>

namespace pk::mpi {

// pk::run_app for MPI programs: an AgreedError becomes one line on rank 0's stderr and
// exit status 2 on every rank; another error one line from its rank and MPI_Abort.
int run_app(const std::string& program, const Communicator& comm, const std::function<int()>& body);

// parse(argc, argv): a std::optional of the program's setup (with its `kokkos_args`), empty
// when --help was answered. run(world, setup, command) then runs on every rank inside
// run_app, so errors are agreed and reported once.
template <class Parse, class Run>
int run_program(const std::string& program, int argc, char** argv, const Parse& parse, const Run& run) {
  const Communicator world;
  return run_app(program, world, [&] {
    decltype(parse(argc, argv)) setup;
    collectively(world, [&] {
      wait_timeout();  // a bad PK_MPI_TIMEOUT is bad input like the command line
      setup = parse(argc, argv);
    });
    if (!setup) return 0;
    const std::string command = command_line(argc, argv);
    require_same_on_every_rank(world, "the command line", command.substr(command.find(' ') + 1));
    std::optional<Session> session;
    collectively(world, [&] { session.emplace(rank_kokkos_arguments(world, setup->kokkos_args)); });
    catch_interrupts();  // run() stops when any rank was signalled (Communicator::bit_or)
    return run(world, *setup, command);
  });
}

}  // namespace pk::mpi
