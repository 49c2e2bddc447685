#pragma once
// Stores that bypass the caches (x86 non-temporal stores) for host loops that write whole
// cache lines of an array they will not read again soon. An ordinary store to a line that is
// not in cache first reads the line from memory (a "read for ownership"), so a loop that
// only writes an array moves its bytes twice; a streaming store moves them once. The lines
// are then not in cache either, which costs a loop that reads them next while they would
// have fit: callers choose (see pk::lbm::AbStores).
//
//   pk::convert_streaming<16>(values, target);  // as pk::convert, bypassing the caches
//   pk::streaming_fence();                      // before other threads may read target
#include <pk/core/binary16.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#if defined(__SSE2__) && defined(KOKKOS_IF_ON_HOST)  // Kokkos >= 3.6; the fallback 3.4.01 stores plainly
#define PK_STREAMING_STORES 1
#include <immintrin.h>
#endif

namespace pk {

// Whole lines of `count` elements (a multiple of a cache line, at a line boundary) as
// pk::convert writes them, each stored around the caches: float and double from themselves
// (a line a store with AVX-512, else 16 bytes), Binary16 from float where the host has F16C,
// anything else converted into a buffer first.
// A `to` off a line boundary is stored plainly by pk::convert.
template <int count, class From, class To>
KOKKOS_FORCEINLINE_FUNCTION void convert_streaming(const From* from, To* to) {
#ifdef PK_STREAMING_STORES
  static_assert(count * sizeof(To) % 64 == 0, "pk::convert_streaming writes whole 64-byte lines");
  if (reinterpret_cast<std::uintptr_t>(to) % 64 == 0) {
#ifdef __AVX512F__  // a whole line a store (docs/lbm.md)
    if constexpr (std::is_same_v<From, float> && std::is_same_v<To, float>) {
      KOKKOS_IF_ON_HOST(
          (for (int l = 0; l < count; l += 16) _mm512_stream_ps(to + l, _mm512_loadu_ps(from + l)); return;))
    }
    if constexpr (std::is_same_v<From, double> && std::is_same_v<To, double>) {
      KOKKOS_IF_ON_HOST(
          (for (int l = 0; l < count; l += 8) _mm512_stream_pd(to + l, _mm512_loadu_pd(from + l)); return;))
    }
#else
    if constexpr (std::is_same_v<From, float> && std::is_same_v<To, float>) {
      KOKKOS_IF_ON_HOST((for (int l = 0; l < count; l += 4) _mm_stream_ps(to + l, _mm_loadu_ps(from + l)); return;))
    }
    if constexpr (std::is_same_v<From, double> && std::is_same_v<To, double>) {
      KOKKOS_IF_ON_HOST((for (int l = 0; l < count; l += 2) _mm_stream_pd(to + l, _mm_loadu_pd(from + l)); return;))
    }
#endif
#ifdef __F16C__
    if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Binary16>) {
      KOKKOS_IF_ON_HOST((for (int l = 0; l < count; l += 8) _mm_stream_si128(
                             reinterpret_cast<__m128i*>(to + l),
                             _mm256_cvtps_ph(_mm256_loadu_ps(from + l), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
                         return;))
    }
#endif
    alignas(64) To staged[count];
    convert<count>(from, staged);
    KOKKOS_IF_ON_HOST((for (std::size_t b = 0; b < count * sizeof(To); b += 16) _mm_stream_si128(
                           reinterpret_cast<__m128i*>(reinterpret_cast<char*>(to) + b),
                           _mm_load_si128(reinterpret_cast<const __m128i*>(reinterpret_cast<const char*>(staged) + b)));
                       return;))
  }
#endif
  convert<count>(from, to);
}

// Streaming stores are weakly ordered: a thread fences after its last one, before another
// thread may read what they wrote.
KOKKOS_FORCEINLINE_FUNCTION void streaming_fence() {
#ifdef PK_STREAMING_STORES
  KOKKOS_IF_ON_HOST((_mm_sfence();))
#endif
}

}  // namespace pk
