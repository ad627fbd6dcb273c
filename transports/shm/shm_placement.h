// Where the host placed this process's core and a peer's, measured from inside the data path:
// the time of one load of the line the peer's consumer writes as it drains its ring
// (`released`), taken only when the consumer wrote it since this writer last read it, so the
// line had to come from the consumer's core. Near (cores sharing a cache) that load takes
// ~15-55 ns; far (~150 ns a line; the placement flips within seconds on the VMs these numbers
// come from) ~145-160, whatever the stream does: the line is one line, not a copy competing
// with the consumer's copies out. Eager's copy-in/copy-out pipeline moves every line of a
// message that way, so near it beats a CMA get up to the largest size the ring should take
// at once (25 GB/s). Far it keeps 14-16 GB/s (mpi_bw at 16-256 KiB, eager forced; one
// message: 8 KiB in 1.35 us against 4.0 by rendezvous, 64 KiB in 4.9 against 6.3) as long
// as the copy into the segment writes whole lines without fetching them first (`rep movsb`,
// which am_bcopy_aligned's frame placement keeps off its aliased path). Before that
// placement a page-aligned buffer's copy fetched every line across and far eager fell to
// 2-4 GB/s.
//
// Measured in eager streams (mpi_bw, 2 ranks), with `floor_cacheline` before and after: near,
// 99.4 % of the timed loads below 60 ns; far, 50-85 % at 145-160 ns and the rest below 60
// (loads that found the line already on its way), and the far stretches came and went
// within one 2-second run (10-250 ms each). A median flapped on such a mixture (40-70 class
// changes in 1.7 s), so a class changes on the count of slow loads among the last kWindow:
// far from a quarter, near again at most two.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace torus::shm {

// A clock cheap enough to time one load. On x86-64 the TSC, fenced so that the load falls
// between the two reads (rdtscp waits for earlier loads); elsewhere steady_clock's
// nanoseconds, whose cost (20-70 ns in VMs) then counts into every sample.
inline uint64_t line_clock_begin() noexcept {
#if defined(__x86_64__)
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

inline uint64_t line_clock_end() noexcept {
#if defined(__x86_64__)
  unsigned aux;
  const uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
#else
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

class Placement {
 public:
  // One eager fragment in this many times the line, on the sender's path: half as often
  // while far, where each timed load waits ~200 ns for the line (one in 8 added ~25 ns to a
  // far 256-byte message's mean latency). Far, messages up to ~100 KiB stay eager, so the
  // window still fills within milliseconds.
  static constexpr unsigned kSampleEveryNear = 32;
  static constexpr unsigned kSampleEveryFar = 64;
  static constexpr unsigned kWindow = 32;
  static constexpr double kSlowNs = 100;   // a load above this crossed to a far core
  static constexpr unsigned kFarFrom = 8;  // slow loads in the window that make it far
  static constexpr unsigned kNearUpTo = 2; // and that bring it back
  // Bandwidth of eager's pipeline in each class, for the cost model.
  static constexpr double kNearBps = 25e9;
  static constexpr double kFarBps = 14e9;
  // The TSC's rate is measured over this long from the first sample (samples wait for it).
  static constexpr int64_t kCalibrateNs = 1'000'000;

  // Whether the next fragment should time the line.
  bool sample_next() noexcept {
    return (++count_ & ((near_ ? kSampleEveryNear : kSampleEveryFar) - 1)) == 0;
  }
  // One timed load, in line_clock ticks; true when the class changed.
  bool record_ticks(uint64_t ticks) noexcept;
  // The same in nanoseconds (negative: ignored).
  bool record_ns(double ns) noexcept;
  bool near() const noexcept { return near_; }
  // Slow loads among the last kWindow (fewer samples so far: among those).
  unsigned slow_loads() const noexcept { return static_cast<unsigned>(__builtin_popcount(slow_)); }
  double bandwidth_Bps() const noexcept { return near_ ? kNearBps : kFarBps; }
  double ns_per_tick() const noexcept { return ns_per_tick_; }  // 0 until calibrated

 private:
  static_assert(kWindow == 32, "the window is the bits of slow_");
  bool calibrated() noexcept;

  uint32_t count_ = 0;
  uint32_t slow_ = 0;  // bit i: the i-th latest load was slow
  unsigned samples_ = 0;
  bool near_ = true;
#if defined(__x86_64__)
  double ns_per_tick_ = 0;
  bool calibrating_ = false;
  uint64_t cal_ticks_ = 0;
  std::chrono::steady_clock::time_point cal_start_{};
#else
  double ns_per_tick_ = 1;
#endif
};

}  // namespace torus::shm
