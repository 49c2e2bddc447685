#pragma once
// The small synthetic 3D-Var case the 3D-Var suites share: nx x 24 x 6 points, sigma 2.5 and
// K = 4 on every axis, 600 observations.
#include <pk/rfilter/synthetic.hpp>

namespace pk::test {

inline rfilter::SyntheticSettings small_3dvar_case(int nx) {
  rfilter::SyntheticSettings s;
  s.grid = {nx, 24, 6};
  for (auto& c : s.covariance.per_axis) c = rfilter::make_coefficients(2.5, 4);
  s.covariance.background_std = 0.5;
  s.observations = 600;
  s.observation_std = 0.1;
  s.seed = 11;
  return s;
}

}  // namespace pk::test
