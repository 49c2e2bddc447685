#pragma once
// Tests of the 16-bit storage formats: floats compared bit for bit, and rounding on a space
// against rounding on the host.
#include "spaces.hpp"

#include <pk/core/float16.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>

namespace pk::test {

// Both NaN (the payload may differ), or the same bits.
inline bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || pk::bits_of(a) == pk::bits_of(b); }

// Each input rounded through Storage on Space gives, bit for bit, what Reference gives on
// the host, so that spaces take the same steps.
template <class Space, class Storage, class Reference>
void expect_rounding_as_on_the_host(const Kokkos::View<float*, Kokkos::HostSpace>& input) {
  const auto values = to_space(Space{}, input);
  Kokkos::parallel_for(
      "pk::test::round_trip", Kokkos::RangePolicy<Space>(0, values.extent(0)),
      KOKKOS_LAMBDA(int i) { values(i) = static_cast<float>(static_cast<Storage>(values(i))); });
  const auto result = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, values);
  int mismatches = 0;
  for (std::size_t i = 0; i < input.extent(0); ++i)
    if (!same(result(i), static_cast<float>(Reference(input(i)))) && mismatches++ < 5)
      ADD_FAILURE() << "input " << input(i) << ": " << result(i);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace pk::test
