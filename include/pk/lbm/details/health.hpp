#pragma once
// The message that stops an unstable run: what is wrong with the first unhealthy cell.
#include <pk/lbm/fields.hpp>
#include <pk/lbm/parameters.hpp>

#include <array>
#include <string>

namespace pk::lbm::Details {

// Names cell `first` of `now` at its coordinates plus `origin` (a rank's lattice names cells
// of the whole one), what is wrong with it, and what to change.
std::string unhealthy_message(const HostFields& now, int first, const std::array<int, 3>& origin,
                              const Parameters& parameters);

}  // namespace pk::lbm::Details
