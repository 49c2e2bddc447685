#pragma once
// The message that stops an unstable run: what is wrong with the first unhealthy cell.
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace pk::lbm::Details {

// Density and velocity of one cell, as the last collision saw them.
struct CellMoments {
  double density = 0, velocity[3] = {0, 0, 0};
};

// Names cell `first` of `geometry` at its coordinates plus `origin` (a rank's lattice names
// cells of the whole one), what is wrong with it at step `step`, and what to change.
std::string unhealthy_message(const Geometry& geometry, std::int64_t step, int first, const std::array<int, 3>& origin,
                              const CellMoments& cell, const Parameters& parameters);

}  // namespace pk::lbm::Details
