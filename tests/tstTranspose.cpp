// pk::transpose_8x8 moves entry c of row r to entry r of column c, for rows and columns apart
// in memory and unaligned, and writes nothing beside the columns.
#include <pk/core/transpose.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(Transpose, EightByEightBetweenScatteredRowsAndColumns) {
  // Rows 19 doubles apart, one past an alignment; columns 11 apart, guards between them.
  std::vector<double> in(8 * 19 + 1), out(8 * 11 + 1, -1.0);
  const double* rows[8];
  double* columns[8];
  for (int r = 0; r < 8; ++r) {
    rows[r] = in.data() + 1 + 19 * r;
    columns[r] = out.data() + 1 + 11 * r;
    for (int c = 0; c < 8; ++c) in[1 + 19 * r + c] = 100.0 * r + c;
  }
  pk::transpose_8x8(rows, columns);
  for (int c = 0; c < 8; ++c)
    for (int r = 0; r < 8; ++r) EXPECT_EQ(columns[c][r], 100.0 * r + c) << "column " << c << ", row " << r;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i == 0 || (i - 1) % 11 >= 8) {
      EXPECT_EQ(out[i], -1.0) << "written beside the columns at " << i;
    }
  }
}

}  // namespace
