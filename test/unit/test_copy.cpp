// copy_bytes: every byte of every size lands, nothing outside [dst, dst + n) is written, for
// each distance the vector loop takes (and a few memcpy keeps), at every destination alignment,
// and on each side of the sizes where it (or copy_to_peer) changes between memcpy, `rep
// movsb` and the loop.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/base/copy.h"

namespace {

using CopyFn = void (*)(void*, const void*, size_t) noexcept;

// Copies n bytes from src_off to dst_off (both within 4 KiB buffers a page apart, so the
// distance mod 4096 is dst_off - src_off) and checks the bytes and the guard bytes around them.
bool copy_checks(size_t n, size_t src_off, size_t dst_off, CopyFn copy = torus::copy_bytes) {
  constexpr size_t kGuard = 64;
  alignas(4096) static std::byte src[3 * 4096 + 16384];
  alignas(4096) static std::byte dst[3 * 4096 + 16384];
  for (size_t i = 0; i < n; ++i) src[src_off + i] = static_cast<std::byte>((i * 131 + n) & 0xff);
  const size_t lo = dst_off - kGuard, hi = dst_off + n + kGuard;
  for (size_t i = lo; i < hi; ++i) dst[i] = std::byte{0xa5};
  copy(dst + dst_off, src + src_off, n);
  for (size_t i = 0; i < n; ++i)
    if (dst[dst_off + i] != src[src_off + i]) return false;
  for (size_t i = lo; i < dst_off; ++i)
    if (dst[i] != std::byte{0xa5}) return false;
  for (size_t i = dst_off + n; i < hi; ++i)
    if (dst[i] != std::byte{0xa5}) return false;
  return true;
}

}  // namespace

TEST_CASE("copy_bytes: the distances rep movsb is slow at are the ones sent to the loop") {
  alignas(4096) static std::byte buf[3 * 4096];
  CHECK_FALSE(torus::copy_is_aliased(buf + 4096, buf));       // distance 0
  CHECK(torus::copy_is_aliased(buf + 4096 + 8, buf));         // 8: 28x slower on Zen 4
  CHECK(torus::copy_is_aliased(buf + 4096 + 63, buf));
  CHECK_FALSE(torus::copy_is_aliased(buf + 4096 + 64, buf));
  CHECK_FALSE(torus::copy_is_aliased(buf + 4096 - 8, buf));   // dst behind src: fine
  CHECK(torus::copy_is_aliased(buf + 2 * 4096 + 8, buf + 4096 + 0));
}

TEST_CASE("copy_bytes: every size and alignment, through the loop and through memcpy") {
  const size_t sizes[] = {0,    1,    127,  128,  129,  159,  160,  161,  255,   256,  1151,
                          1152, 1153, 1500, 2047, 2048, 2049, 2111, 2112, 4095,  4096, 4104,
                          8191, 8192, 12345, 16384};
  for (size_t n : sizes) {
    for (size_t src_align = 0; src_align < 64; src_align += 7) {
      // Distances 0..70 cover the loop's range (1..63) and memcpy on both sides of it.
      for (size_t dist = 0; dist <= 70; ++dist) {
        const size_t src_off = 64 + src_align, dst_off = 4096 + src_off + dist;
        INFO("n=" << n << " src_off=" << src_off << " distance=" << dist);
        REQUIRE(copy_checks(n, src_off, dst_off));
        REQUIRE(copy_checks(n, src_off, dst_off, torus::copy_bytes_sse2));
        REQUIRE(copy_checks(n, src_off, dst_off, torus::copy_to_peer));
      }
    }
  }
}
