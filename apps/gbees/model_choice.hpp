#pragma once
// The model pk-gbees' options name, handed to a generic function.
#include "options.hpp"

#include <pk/gbees/models.hpp>

namespace pk::gbees::app {

template <class Function>
void with_model(const Options& o, int n, const Function& run) {
  if (o.model == "lorenz63")
    run(Lorenz63{});
  else if (o.model == "pcr3bp")
    run(o.mu ? PCR3BP{*o.mu} : PCR3BP{});
  else if (o.model == "cr3bp")
    run(o.mu ? CR3BP{*o.mu} : CR3BP{});
  else
    run(Lorenz96{n, o.forcing});
}

}  // namespace pk::gbees::app
