// How fast this process copies eager fragments into its peers' rings, sampled: the evidence
// of where the host placed the cores. When both share a cache (a line moves between them in
// ~30-60 ns), eager's copy-in/copy-out pipeline over both cores beats a CMA get up to the
// largest size the ring should take at once (an 8 KiB fragment goes in at ~25 GB/s). When
// they are far apart (~150-250 ns a line; the placement flips within minutes on the VMs
// these numbers come from), each fragment costs several times as much and a get wins above
// ~8-10 KiB. Measured: MPI ping-pong at 16 KiB, 1.1-1.3 us eager and 3.2-4.2 by rendezvous
// near; 5.98 eager and 3.84 by rendezvous far.
//
// A class changes on a low quantile of the last kWindow samples (the second smallest), with
// hysteresis. Interference only ever adds time (a preempted copy, the page faults of a ring's
// first pass, a receiver copying out at once in a stream), so the fast end of the samples
// shows what the placement costs; and the endpoint times only copies into a ring the consumer
// has drained. Near, with tracing: ping-pong copies at p10/p50/p99 of 23-27/33-39/96-137 ns
// per KiB; copies into rings being drained at once (streams of 64 KiB-256 KiB messages)
// 28-68/91-97/485-492, where even the low quantile crossed the far boundary.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace torus::shm {

class CopyRate {
 public:
  static constexpr unsigned kSampleEvery = 32;  // a clock read costs 20-70 ns in these VMs
  static constexpr size_t kMinBytes = 4096;     // smaller copies say little of the placement
  static constexpr unsigned kWindow = 9;
  // Far, a 16 KiB ping-pong took 5.98 us by eager, ~250 ns per KiB for each copy.
  static constexpr double kFastBelowNsPerKiB = 80;
  static constexpr double kSlowAboveNsPerKiB = 120;
  // Bandwidth of eager's pipeline in each class, for the cost model.
  static constexpr double kFastBps = 25e9;
  static constexpr double kSlowBps = 3e9;

  // Whether the next fragment's copy should be timed.
  bool sample_next() noexcept { return (++count_ & (kSampleEvery - 1)) == 0; }
  // One timed copy of `bytes` (ignored below kMinBytes); true when the class changed.
  bool record(size_t bytes, double ns) noexcept;
  bool fast() const noexcept { return fast_; }
  double ns_per_kib() const noexcept { return low_; }  // 0 before kWindow samples
  double bandwidth_Bps() const noexcept { return fast_ ? kFastBps : kSlowBps; }

 private:
  uint32_t count_ = 0;
  std::array<double, kWindow> recent_{};  // ns per KiB, a ring
  unsigned samples_ = 0;
  double low_ = 0;
  bool fast_ = true;
};

}  // namespace torus::shm
