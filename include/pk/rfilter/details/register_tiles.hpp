#pragma once
// GPU teams for lines that do not run along the contiguous axis: each thread reads its piece
// straight from global memory into registers, every entry in flight at once, and writes it
// back; only the pieces' ends pass through scratch. A warp's threads hold consecutive lines
// (TeamSweeps), which lie at consecutive addresses, so each access reads whole sectors.
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/lines.hpp>
#include <pk/rfilter/details/team_tiles.hpp>

#include <Kokkos_Core.hpp>

namespace pk::rfilter::Details {

template <class ExecutionSpace, class Field3>
void filter_lines_in_registers(const ExecutionSpace& space, const Field3& field,
                               const LineGeometry<typename Field3::array_layout>& g, const Coefficients& c,
                               bool adjoint, int tile) {
  using Policy = GpuTeams<ExecutionSpace, register_teams_per_multiprocessor>;
  using Member = typename Policy::member_type;
  using Scratch = ScratchView<ExecutionSpace>;
  using Sweeps = SpaceSweeps<ExecutionSpace>;
  const int n = g.length, ends_size = Sweeps::ends_size(n, tile);
  const long teams = (g.lines + tile - 1) / tile;
  const auto weights = Sweeps::weights(c.alpha, c.beta);
  const int iterations = c.iterations;
  const Policy policy = Policy(space, static_cast<int>(teams), tile * Sweeps::pieces(n))
                            .set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(static_cast<size_t>(ends_size))));
  double* const data = field.data();
  Kokkos::parallel_for(
      "pk::rfilter::filter_lines_in_registers", policy, KOKKOS_LAMBDA(const Member& team) {
        const long first = static_cast<long>(team.league_rank()) * tile;
        const int count = static_cast<int>(g.lines - first < tile ? g.lines - first : tile);
        const Scratch ends(team.team_scratch(0), static_cast<size_t>(ends_size));
        const Sweeps sweeps(team, ends.data(), n, count, tile, weights);
        const int l = sweeps.line();
        double* const line = data + (l < count ? g.offset(first + l) : 0);
        sweeps.filter([&](int j) -> double& { return line[j * g.axis_step]; }, iterations, adjoint);
      });
}

}  // namespace pk::rfilter::Details
