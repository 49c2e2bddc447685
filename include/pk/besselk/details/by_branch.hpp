#pragma once
// A loop over points whose bodies branch by point: threads that run in lockstep (a GPU's warp)
// run every branch their points take one after the other, each with the threads of the others
// idle. So each team first sorts the indices of its chunk of points by their branch (a key in
// [0, groups)), a counting sort in team scratch, and then runs the bodies in that order: the
// threads of a warp take neighbouring indices of the sorted chunk, which share one branch except
// where one key's run ends. A body's result does not depend on the order.
#include <pk/core/spaces.hpp>

#include <Kokkos_Core.hpp>

namespace pk::besselk::Details {

// The counter's value before adding one: atomic where a team's threads share it.
template <bool shared>
KOKKOS_INLINE_FUNCTION int claim(int& counter) {
  if constexpr (shared) return Kokkos::atomic_fetch_add(&counter, 1);
  return counter++;
}

// body(i) for every i in [0, n), on `space`, each team's chunk sorted by key(i) in [0, groups),
// the branch body(i) takes.
template <int groups, class ExecutionSpace, class Key, class Body>
void for_each_sorted_by_branch(const char* label, const ExecutionSpace& space, long n, const Key& key,
                               const Body& body) {
  constexpr int lockstep = SpaceTraits<ExecutionSpace>::lockstep_threads;
  // A team of a few lockstep groups, each thread with a few points of the chunk; a team of one
  // thread where threads do not run in lockstep.
  constexpr int team_threads = lockstep > 1 ? 4 * lockstep : 1;
  constexpr int chunk = 8 * team_threads;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<int*, typename ExecutionSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const long teams = (n + chunk - 1) / chunk;
  if (teams == 0) return;
  const std::size_t bytes = Scratch::shmem_size(chunk) + Scratch::shmem_size(2 * groups);
  Kokkos::parallel_for(
      label, Policy(space, teams, team_threads).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& team) {
        const long begin = team.league_rank() * static_cast<long>(chunk);
        const int size = static_cast<int>(n - begin < chunk ? n - begin : chunk);
        const Scratch order(team.team_scratch(0), chunk), counts(team.team_scratch(0), 2 * groups);
        // counts(g): the points of key g; counts(groups + g): the next free place of key g.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * groups), [&](const int g) { counts(g) = 0; });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size),
                             [&](const int j) { claim<(team_threads > 1)>(counts(key(begin + j))); });
        team.team_barrier();
        Kokkos::single(Kokkos::PerTeam(team), [&] {
          int start = 0;
          for (int g = 0; g < groups; ++g) {
            counts(groups + g) = start;
            start += counts(g);
          }
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size), [&](const int j) {
          order(claim<(team_threads > 1)>(counts(groups + key(begin + j)))) = j;
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size), [&](const int j) { body(begin + order(j)); });
      });
}

}  // namespace pk::besselk::Details
