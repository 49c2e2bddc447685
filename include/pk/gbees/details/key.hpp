#pragma once
// Packing an n-dimensional integer cell index into one 64-bit hash key: the top member_bits
// bits hold the PDF's number in an ensemble (none for one PDF), the rest (64 - member_bits)/n
// bits per axis, each axis stored with a bias so that index i occupies the field value
// i + 2^(bits-1). A shift along an axis never changes the member, so the cells of different
// PDFs are never neighbours.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

struct KeyCodec {
  int n = 0;
  int member_bits = 0;
  int bits = 0;
  std::int64_t bias = 0;  // 2^(bits-1): the field value of index 0
  std::uint64_t mask = 0;

  KeyCodec() = default;
  explicit KeyCodec(int dimension, int member_bits_ = 0)
      : n(dimension),
        member_bits(member_bits_),
        bits((64 - member_bits_) / dimension),
        bias(std::int64_t(1) << (bits - 1)),
        mask(bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1) {}

  // Indices i with |i| < limit() (and i >= -limit()) are representable.
  KOKKOS_INLINE_FUNCTION std::int64_t limit() const { return bias; }

  KOKKOS_INLINE_FUNCTION std::int64_t index(std::uint64_t key, int d) const {
    return static_cast<std::int64_t>((key >> (d * bits)) & mask) - bias;
  }
  KOKKOS_INLINE_FUNCTION int member(std::uint64_t key) const {
    return member_bits == 0 ? 0 : static_cast<int>(key >> (64 - member_bits));
  }
  // False when some index lies outside [-bias, bias - 1].
  KOKKOS_INLINE_FUNCTION bool pack(const std::int64_t* i, std::uint64_t& key, int member_ = 0) const {
    key = member_bits == 0 ? 0 : static_cast<std::uint64_t>(member_) << (64 - member_bits);
    for (int d = 0; d < n; ++d) {
      const std::int64_t field = i[d] + bias;
      if (field < 0 || field > static_cast<std::int64_t>(mask)) return false;
      key |= static_cast<std::uint64_t>(field) << (d * bits);
    }
    return true;
  }
  // The key's top member_bits bits (its PDF's number), the rest zero.
  KOKKOS_INLINE_FUNCTION std::uint64_t member_part(std::uint64_t key) const {
    return member_bits == 0 ? 0 : key >> (64 - member_bits) << (64 - member_bits);
  }
  // The low `low` bits of each axis's field interleaved, bit b of axis d at place b n + d: the
  // cells' Z-order, in which cells near each other in space lie near each other (cells 2^low
  // apart along an axis share a code). Below the top bit a field's bits are its index's.
  KOKKOS_INLINE_FUNCTION std::uint64_t z_order(std::uint64_t key, int low) const {
    std::uint64_t z = 0;
    for (int b = 0; b < low; ++b)
      for (int d = 0; d < n; ++d) z |= ((key >> (d * bits + b)) & 1) << (b * n + d);
    return z;
  }

  // key with index d moved by delta (+-1); false (key unchanged) when it would leave the range.
  KOKKOS_INLINE_FUNCTION bool shift(std::uint64_t key, int d, int delta, std::uint64_t& out) const {
    const std::int64_t field = static_cast<std::int64_t>((key >> (d * bits)) & mask) + delta;
    if (field < 0 || field > static_cast<std::int64_t>(mask)) return false;
    out = delta > 0 ? key + (std::uint64_t(delta) << (d * bits)) : key - (std::uint64_t(-delta) << (d * bits));
    return true;
  }
};

}  // namespace pk::gbees::Details
