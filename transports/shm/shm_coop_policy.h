// Whether a mid-size CMA get is shared with the target (shm_coop.h): decided by measurement.
// Sharing a get of a few hundred KiB pays when the copy is bound by memory (buffers the caches
// no longer hold: two cores keep twice the misses in flight; MPI bandwidth at 512 KiB over 64
// distinct receive slots 4861 -> 7773 MB/s) and in a ping-pong (the target is idle anyway:
// tag_lat 128 KiB 12.0 -> 9.8 us), but loses when one hot buffer is streamed again and again:
// the target's writes pull the destination's lines into its own cache, and the initiator's
// next copy must take them back (tag_bw 128 KiB 11186 -> 7695 MB/s). Neither the size nor the
// address says which case a get is, so the process times its own gets in the range.
//
// The choice is an EpochAb (core/base/epoch_ab.h): gets in epochs of kEpochGets, all plain
// or all shared, a cycle probing plain, then shared, then running the faster. A probe costs
// more than its own epoch (after shared gets, plain ones run slower for a while: tag_bw
// 128 KiB lost 12-20 % with every 16th epoch a shared probe), hence cycles that double while
// the winner holds. An epoch with a gap of more than kGapNs between two gets (the program did
// something else) is restarted, so idle time never counts against either mode.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/epoch_ab.h"

namespace torus::shm {

class CoopPolicy {
 public:
  static constexpr uint32_t kEpochGets = 8;
  static constexpr uint32_t kCycleEpochs = 16;
  static constexpr uint32_t kMaxCycleEpochs = 256;
  static constexpr uint64_t kGapNs = 2'000'000;

  // Gets of [lo, hi) bytes are decided here; an empty range (lo >= hi) decides none.
  CoopPolicy(uint64_t lo, uint64_t hi) noexcept : lo_(lo), hi_(hi) {}

  bool in_range(size_t length) const noexcept { return length >= lo_ && length < hi_; }
  // A get of `length` bytes (in range) starts at `now_ns` (a monotonic clock): true to share.
  bool choose(size_t length, uint64_t now_ns) noexcept { return ab_.choose(length, now_ns); }

  // Average rates in bytes per ns (0 until measured), and epochs completed, for tests and
  // diagnostics.
  double rate(bool shared) const noexcept { return ab_.rate(shared); }
  uint64_t epochs() const noexcept { return ab_.epochs(); }

 private:
  uint64_t lo_, hi_;
  EpochAb ab_{EpochAbParams{.epoch_ops = kEpochGets,
                            .cycle_epochs = kCycleEpochs,
                            .max_cycle_epochs = kMaxCycleEpochs,
                            .gap_ns = kGapNs}};
};

}  // namespace torus::shm
