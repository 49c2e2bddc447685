#include <pk/app/mpi_program.hpp>

#include <exception>
#include <iostream>

namespace pk::mpi {

int run_app(const std::string& program, const Communicator& comm, const std::function<int()>& body) {
  try {
    return body();
  } catch (const AgreedError& e) {
    if (comm.rank() == 0) std::cerr << program << ": error: " << e.what() << '\n';
    return 2;
  } catch (const Error& e) {
    std::cerr << program << ": error on rank " << comm.rank() << " of " << comm.size() << ": " << e.what() << '\n';
    MPI_Abort(comm.get(), 2);
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error on rank " << comm.rank() << " of " << comm.size() << ": " << e.what()
              << '\n';
    MPI_Abort(comm.get(), 1);
  }
  return 1;
}

}  // namespace pk::mpi
