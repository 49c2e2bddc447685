#pragma once
// Comparing floats bit for bit in tests of the 16-bit storage formats.
#include <pk/core/float16.hpp>

#include <cmath>

namespace pk::test {

// Both NaN (the payload may differ), or the same bits.
inline bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || pk::bits_of(a) == pk::bits_of(b); }

}  // namespace pk::test
