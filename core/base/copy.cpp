#include "core/base/copy.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace torus {
namespace {

#if defined(__x86_64__)
// Both loops copy 128 bytes a turn, loads before stores, then the last 128 bytes from the
// end (rewriting bytes the loop already wrote, with the same values). The empty asm keeps
// the compiler from turning a loop back into a call to memcpy.
template <bool kAlignedStores>
__attribute__((target("avx2"))) inline void move128_avx2(std::byte* d, const std::byte* s) {
  const auto* in = reinterpret_cast<const __m256i*>(s);
  auto* out = reinterpret_cast<__m256i*>(d);
  // Four named registers: GCC 12 spills an array of them to the stack.
  const __m256i a = _mm256_loadu_si256(in), b = _mm256_loadu_si256(in + 1),
                c = _mm256_loadu_si256(in + 2), e = _mm256_loadu_si256(in + 3);
  if constexpr (kAlignedStores) {
    _mm256_store_si256(out, a);
    _mm256_store_si256(out + 1, b);
    _mm256_store_si256(out + 2, c);
    _mm256_store_si256(out + 3, e);
  } else {
    _mm256_storeu_si256(out, a);
    _mm256_storeu_si256(out + 1, b);
    _mm256_storeu_si256(out + 2, c);
    _mm256_storeu_si256(out + 3, e);
  }
}

__attribute__((target("avx2"))) void copy_avx2(std::byte* d, const std::byte* s, size_t n) {
  const std::byte* const s_last = s + n - 128;
  std::byte* const d_last = d + n - 128;
  // The first 32 bytes unaligned, then aligned stores from the next 32-byte boundary.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(d),
                      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)));
  const size_t skip = 32 - (reinterpret_cast<uintptr_t>(d) & 31);
  s += skip;
  d += skip;
  for (; s < s_last; s += 128, d += 128) {
    move128_avx2<true>(d, s);
    asm volatile("" ::: "memory");
  }
  move128_avx2<false>(d_last, s_last);
}

inline void move64_sse2(std::byte* d, const std::byte* s) {
  const auto* in = reinterpret_cast<const __m128i*>(s);
  auto* out = reinterpret_cast<__m128i*>(d);
  const __m128i a = _mm_loadu_si128(in), b = _mm_loadu_si128(in + 1),
                c = _mm_loadu_si128(in + 2), e = _mm_loadu_si128(in + 3);
  _mm_storeu_si128(out, a);
  _mm_storeu_si128(out + 1, b);
  _mm_storeu_si128(out + 2, c);
  _mm_storeu_si128(out + 3, e);
}

void copy_sse2(std::byte* d, const std::byte* s, size_t n) {
  const std::byte* const s_last = s + n - 128;
  std::byte* const d_last = d + n - 128;
  for (; s < s_last; s += 128, d += 128) {
    move64_sse2(d, s);
    move64_sse2(d + 64, s + 64);
    asm volatile("" ::: "memory");
  }
  move64_sse2(d_last, s_last);
  move64_sse2(d_last + 64, s_last + 64);
}

void rep_movsb(std::byte* d, const std::byte* s, size_t n) noexcept {
  asm volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

// The fastest of 4 batches of 8 copies of 4 KiB at `distance`, in ns.
double time_rep_movsb(std::byte* buf, size_t distance) noexcept {
  using Clock = std::chrono::steady_clock;
  const std::byte* src = buf + 64;
  std::byte* dst = buf + 2 * 4096 + 64 + distance;
  double best = 1e30;
  for (int batch = 0; batch < 4; ++batch) {
    const auto t0 = Clock::now();
    for (int i = 0; i < 8; ++i) rep_movsb(dst, src, 4096);
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  return best;
}
#endif

}  // namespace

bool rep_movsb_alias_slow() noexcept {
#if defined(__x86_64__)
  static const bool slow = [] {
    constexpr size_t kBuf = 4 * 4096;
    auto* buf = static_cast<std::byte*>(std::aligned_alloc(4096, kBuf));
    if (buf == nullptr) return false;
    std::memset(buf, 1, kBuf);
    (void)time_rep_movsb(buf, 64);  // warm the pages and the caches
    // 28x on Zen 4; a factor of 3 stays clear of timer noise on an unaffected CPU.
    const bool r = time_rep_movsb(buf, 8) > 3 * time_rep_movsb(buf, 64);
    std::free(buf);
    return r;
  }();
  return slow;
#else
  return false;
#endif
}

void copy_bytes_vector(void* dst, const void* src, size_t n) noexcept {
#if defined(__x86_64__)
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  if (n < 128) return static_cast<void>(std::memcpy(d, s, n));
  // A function-local static: correct even when called from another static initializer.
  static const bool has_avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  if (has_avx2) return copy_avx2(d, s, n);
  return copy_sse2(d, s, n);
#else
  std::memcpy(dst, src, n);
#endif
}

void copy_to_peer_mid(void* dst, const void* src, size_t n) noexcept {
  static_assert(kCopyMovsbMin < kCopyAliasMin && kCopyAliasMin < kCopyMovsbGlibc);
#if defined(__x86_64__)
  // CPUID.(EAX=7,ECX=0):EDX bit 4, fast short `rep movsb`.
  static const bool has_fsrm = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d & (1u << 4)) != 0;
  }();
  if (has_fsrm && !copy_is_aliased(dst, src))
    return rep_movsb(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n);
#endif
  copy_bytes(dst, src, n);
}

void copy_bytes_sse2(void* dst, const void* src, size_t n) noexcept {
#if defined(__x86_64__)
  if (n >= 128)
    return copy_sse2(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), n);
#endif
  std::memcpy(dst, src, n);
}

}  // namespace torus
