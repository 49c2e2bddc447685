// Agreed errors: an error on some ranks reaches every rank, with one message.
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using pk::mpi::AgreedError;

// The message of the AgreedError that f throws, on every rank; "" when it throws none.
template <class F>
std::string agreed_message(F&& f) {
  try {
    f();
  } catch (const AgreedError& e) {
    return e.what();
  }
  return "";
}

TEST(MpiErrors, ErrorOnOneRankReachesEveryRank) {
  const pk::mpi::Communicator world;
  const int last = world.size() - 1;
  const std::string message =
      agreed_message([&] { pk::mpi::collectively(world, [&] { pk::require(world.rank() != last, "bad slab"); }); });
  EXPECT_EQ(message, world.size() == 1 ? "bad slab" : "rank " + std::to_string(last) + ": bad slab");
  EXPECT_EQ(agreed_message([&] { pk::mpi::collectively(world, [] {}); }), "");
}

TEST(MpiErrors, DifferentValuesAreNamed) {
  const pk::mpi::Communicator world;
  if (world.size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const std::string message =
      agreed_message([&] { pk::mpi::require_same_on_every_rank(world, "--tau", world.rank() == 1 ? "0.9" : "0.8"); });
  EXPECT_EQ(message, "rank 1: --tau is '0.9' here but '0.8' on rank 0: every rank must be given the same");
}

}  // namespace
