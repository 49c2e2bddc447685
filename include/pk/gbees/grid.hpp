#pragma once
// The sparse dynamic grid of GBEES (sec. 3.1, 4.1): cells keyed by their packed n-D integer
// index in a Kokkos::UnorderedMap (key -> slot), cell data in structure-of-arrays views
// (details/sparse_grid.hpp), and what it costs (grid_memory.hpp).
#include <pk/gbees/details/sparse_grid.hpp>
#include <pk/gbees/grid_memory.hpp>

namespace pk::gbees {

template <class ExecutionSpace>
using SparseGrid = Details::SparseGrid<ExecutionSpace>;

}  // namespace pk::gbees
