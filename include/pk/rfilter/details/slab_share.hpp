#pragma once
// A rank's share of the distributed 3D-Var (distributed_three_dvar.hpp): the checks of a
// split into x slabs, alike on every rank, and the observations a slab keeps.
#include <pk/core/error.hpp>
#include <pk/rfilter/observation_set.hpp>

#include <cstddef>

namespace pk::rfilter::Details {

// A grid split into `ranks` x slabs with `overlap` x layers of each neighbour: refused,
// with what to change, where a slab would be thinner than 2 layers or than the overlap.
inline void check_x_split(int ranks, const Grid& grid, int overlap) {
  check_grid(grid);
  require(ranks == 1 || 2 * ranks <= grid.nx, "3D-Var on ", ranks, " ranks: the grid has only ", grid.nx,
          " x layers; use at most ", grid.nx / 2, " ranks (2 x layers each)");
  require(ranks == 1 || overlap >= 1, "3D-Var on ", ranks,
          " ranks: the overlap must be at least 1 (H reads one x layer of the next rank)");
  require(overlap >= 0 && (ranks == 1 || overlap <= grid.nx / ranks), "3D-Var on ", ranks, " ranks: overlap ", overlap,
          " is larger than the thinnest slab (", grid.nx / ranks, " x layers); use fewer ranks or a smaller overlap");
}

// The observations of the slab [begin, end) of x: those whose cell's lower x corner it owns
// (on a grid one layer thick, rank 0's), x shifted by room_below - begin into the slab's
// extended layout. Their upper corner is at most the first layer of room above the slab; on
// the last rank, the clamp at the grid's end keeps them in the slab.
inline ObservationSet observations_of_slab(const ObservationSet& all, const Grid& grid, int begin, int end,
                                           int room_below, bool first_rank) {
  ObservationSet mine;
  for (std::size_t o = 0; o < all.size(); ++o) {
    int lower = static_cast<int>(all.x[o]);
    if (lower > grid.nx - 2) lower = grid.nx - 2;
    if (grid.nx > 1 ? lower < begin || lower >= end : !first_rank) continue;
    mine.x.push_back(all.x[o] - begin + room_below);
    mine.y.push_back(all.y[o]);
    mine.z.push_back(all.z[o]);
    mine.value.push_back(all.value[o]);
    mine.error_std.push_back(all.error_std[o]);
  }
  return mine;
}

}  // namespace pk::rfilter::Details
