// copy_bytes: memcpy for the data path (eager fragments into and out of shared memory, the
// unexpected queue, packed datatypes), without glibc's slow case on AMD Zen.
//
// From 2112 bytes glibc (2.36, Debian 12) copies with `rep movsb` when the CPU reports FSRM.
// On Zen 3/4 that instruction runs about 28 times slower when (dst - src) mod 4096 is 1-15,
// and 2.5 times slower at 16-31 (4 KiB: 1150 against 41 ns on the CI kind's EPYC). An eager
// fragment lands 8 bytes past a page-aligned segment slot, so a page-aligned user buffer hits
// exactly that case. copy_bytes sends those distances to a vector loop. Newer glibc makes the
// same check; this keeps older ones fast too.
//
// copy_to_peer: copy_bytes for a destination another process reads next (a transport's send buffer
// in shared memory). Below 2112 bytes glibc copies with its vector loop, whose stores read each
// destination line before writing it; when the line was last read by a core on another die (an
// eager segment the receiver drained) each read is a cross-die fetch, and `rep movsb` on an FSRM
// CPU writes whole lines without it. So from kCopyMovsbMin to glibc's threshold copy_to_peer uses
// `rep movsb` where the CPU has FSRM (docs/performance-history.md, 2026-12-06; vCPUs on different
// dies, MPI over shm: 2 KiB ping-pong 1.06 -> 0.97 us one way, 1280 B 0.90 -> 0.82, bandwidth at 2
// KiB +14 %, 1152 B +10 %; from 1 KiB it read 4 % below memcpy, hence the bound). Not for every
// copy: into lines this core holds, `rep movsb` is the slower one (an MPI_Put of 2 KiB into a
// shared window, the same lines each time: 35 -> 47 ns).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace torus {

// Below this glibc never uses `rep movsb`, whatever the CPU.
inline constexpr size_t kCopyAliasMin = 2048;
// (dst - src) mod 4096 below this takes the vector loop.
inline constexpr uintptr_t kCopyAliasDistance = 64;

// The vector loop (AVX2 where the CPU has it, else SSE2), any n, non-overlapping.
void copy_bytes_vector(void* dst, const void* src, size_t n) noexcept;
// The SSE2 loop alone, so that tests cover it on AVX2 machines too.
void copy_bytes_sse2(void* dst, const void* src, size_t n) noexcept;

inline bool copy_is_aliased(const void* dst, const void* src) noexcept {
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src);
  return (d & 4095) - 1 < kCopyAliasDistance - 1;  // 1 .. 63; 0 is fine
}

// Whether this CPU's `rep movsb` (which the kernel's copies to and from user memory use on
// FSRM CPUs) is slow at the aliased distances: timed once, on first call, at 4 KiB with
// distances 8 and 64 (about 0.1 ms where it is slow). False off x86-64.
bool rep_movsb_alias_slow() noexcept;

// memcpy's contract: dst and src do not overlap.
inline void copy_bytes(void* dst, const void* src, size_t n) noexcept {
  if (n >= kCopyAliasMin && copy_is_aliased(dst, src)) [[unlikely]]
    return copy_bytes_vector(dst, src, n);
  std::memcpy(dst, src, n);
}

// From here to kCopyMovsbGlibc, copy_to_peer uses `rep movsb` where the CPU has FSRM.
inline constexpr size_t kCopyMovsbMin = 1152;
// From here glibc chooses `rep movsb` itself on FSRM CPUs.
inline constexpr size_t kCopyMovsbGlibc = 2112;

// copy_to_peer for kCopyMovsbMin <= n < kCopyMovsbGlibc.
void copy_to_peer_mid(void* dst, const void* src, size_t n) noexcept;

// copy_bytes into memory another process reads next (see the top).
inline void copy_to_peer(void* dst, const void* src, size_t n) noexcept {
  if (n >= kCopyMovsbMin && n < kCopyMovsbGlibc) return copy_to_peer_mid(dst, src, n);
  copy_bytes(dst, src, n);
}

}  // namespace torus
