#pragma once
// Errors in MPI programs. An error one rank finds while the others wait in a collective
// would hang the run, so errors are agreed: code that may fail on some ranks runs inside
// collectively(), after which every rank knows whether any failed and throws the same
// AgreedError (a program then reports it once: pk/app/mpi_program.hpp).
#include <pk/core/error.hpp>
#include <pk/mpi/communicator.hpp>

#include <functional>
#include <string>

namespace pk::mpi {

// A pk::Error that every rank of the communicator holds.
class AgreedError : public Error {
 public:
  using Error::Error;
};

// Runs body() on every rank, then agrees: when it threw pk::Error on any rank, every rank
// throws AgreedError with the message of the lowest failing rank (prefixed "rank R: " when
// not every rank failed). An AgreedError from body passes through unchanged.
void collectively(const Communicator& comm, const std::function<void()>& body);

// Throws AgreedError when `value` differs between ranks, naming the first rank whose
// `what` differs from rank 0's.
void require_same_on_every_rank(const Communicator& comm, const std::string& what, const std::string& value);

}  // namespace pk::mpi
