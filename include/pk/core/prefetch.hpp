#pragma once
// Software prefetch for host loops that walk more arrays at once than the hardware
// prefetchers follow. The LBM rows traversal walks 19 to 38 streams per thread, one per
// direction of each lattice, and with them in flight a core keeps more of its lines coming.
// A hint: it changes no result, and does nothing on devices and on compilers without
// GCC's builtin (g++, clang).
//
//   pk::prefetch_ahead<true, 64>(address, 512);  // the 64 bytes at address + 512, to write
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk {

// Asks the cache for the lines of [address + distance, address + distance + bytes), to read
// them or (for_write) to write them; locality 3 asks for them in every level of cache, 2 in
// the second level and below (GCC's scale: what is still to wait should not evict the level-1
// cache's lines in use).
template <bool for_write, int bytes, int locality = 3>
KOKKOS_FORCEINLINE_FUNCTION void prefetch_ahead(const void* address, long distance) {
#if defined(__GNUC__) && defined(KOKKOS_IF_ON_HOST)
  // as an integer: the lines ahead may lie past the array's end, where a hint is harmless
  KOKKOS_IF_ON_HOST((const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(address) + distance;
                     for (int b = 0; b < bytes; b += 64)
                         __builtin_prefetch(reinterpret_cast<const void*>(first + b), for_write ? 1 : 0, locality);))
#endif
  (void)address;
  (void)distance;
}

}  // namespace pk
