#pragma once
// The skeleton of every program's main(): OpenMP threads bound (process.hpp), the command line
// parsed and checked before Kokkos starts, Kokkos' session, signals caught, errors as one line
// and the exit status (run_app.hpp); with MPI, started by a launcher on several ranks, the
// distributed run instead (mpi_program.hpp).
//
//   int main(int argc, char** argv) { return pk::program_main("pk-x", argc, argv, parse, run, run_ranks); }
//
// parse(argc, argv): a std::optional of the program's setup (with its `kokkos_args`), empty
// when --help was answered. run(setup, command) on one process; run_ranks(world, setup,
// command) on every rank. Either runs each space in turn (for_each_space_until_interrupted).
// The exit status is 0, or the signal's (interrupt.hpp) when a signal stopped the run.
#include <pk/app/process.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/session.hpp>
#include <pk/app/space_selection.hpp>
#include <pk/core/interrupt.hpp>

#include <optional>
#include <string>
#include <vector>

#if PK_ENABLE_MPI
#include <pk/app/mpi_program.hpp>
#endif

namespace pk {

namespace Details {
template <class Parse, class Run>
int run_one_process(const std::string& program, int argc, char** argv, const Parse& parse, const Run& run) {
  return run_app(program, [&] {
    const auto setup = parse(argc, argv);
    if (!setup) return 0;
    Session session(setup->kokkos_args);
    catch_interrupts();
    run(*setup, command_line(argc, argv));
    return interrupted() ? interrupted_status() : 0;
  });
}
}  // namespace Details

// A program that runs on one process (several ranks each run it whole).
template <class Parse, class Run>
int program_main(const std::string& program, int argc, char** argv, const Parse& parse, const Run& run) {
  bind_openmp_threads_by_default(argv);
  return Details::run_one_process(program, argc, argv, parse, run);
}

#if PK_ENABLE_MPI
// A program with a distributed run, on several ranks when a launcher started it.
template <class Parse, class Run, class RunRanks>
int program_main(const std::string& program, int argc, char** argv, const Parse& parse, const Run& run,
                 const RunRanks& run_ranks) {
  bind_openmp_threads_by_default(argv);
  mpi::Environment mpi(argc, argv);
  if (mpi.ranks() == 1) return Details::run_one_process(program, argc, argv, parse, run);
  return mpi::run_program(program, argc, argv, parse,
                          [&](const mpi::Communicator& world, const auto& setup, const std::string& command) {
                            run_ranks(world, setup, command);
                            // Every rank exits as the signalled ones do (143 for SIGTERM), or 0.
                            return static_cast<int>(world.max(interrupted() ? interrupted_status() : 0));
                          });
}
#endif

// Calls run(space) with each space `names` selects, in turn, until a signal stops a run.
template <class Run>
void for_each_space_until_interrupted(const std::vector<std::string>& names, const Run& run) {
  for_each_selected_space(names, [&](const auto& space) {
    if (!interrupted()) run(space);
  });
}

#if PK_ENABLE_MPI
namespace mpi {
// Calls run(space) on every rank with each space `names` selects, in turn, until a signal
// stops a run on some rank.
template <class Run>
void for_each_space_until_interrupted(const Communicator& world, const std::vector<std::string>& names,
                                      const Run& run) {
  for_each_selected_space(names, [&](const auto& space) {
    if (world.max(interrupted() ? 1 : 0) == 0) run(space);
  });
}
}  // namespace mpi
#endif

}  // namespace pk
