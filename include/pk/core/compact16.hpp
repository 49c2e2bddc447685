#pragma once
// A 16-bit float for stored numbers that never reach 2: 1 sign bit, 4 exponent bits and 11
// mantissa bits, one more than IEEE binary16 (pk::Binary16), which spends that bit on range
// up to 65504. Normal numbers run from 2^-13 to just under 2 with a relative rounding step of
// 2^-12; below 2^-13 they are subnormal, multiples of 2^-24 as binary16's are. The largest
// exponent holds infinity and NaN, so that an overflowing or broken value still shows.
// FluidX3D stores LBM populations in such a format (its FP16C): here it serves the LBM
// populations stored minus their weights, |g| < 1 (pk::lbm, precision "fp16c").
//
//   pk::Compact16 c(0.1f);           // 0x54cd
//   float back = float(c);           // 0.100006104f (binary16: 0.0999755859f)
//
// Conversions round to nearest even, as Float16's do (float16.hpp), the same on every space.
#include <pk/core/float16.hpp>

namespace pk {

using Compact16 = Float16<4, 14>;

}  // namespace pk
