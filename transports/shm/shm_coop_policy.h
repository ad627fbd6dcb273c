// Whether a mid-size CMA get is shared with the target (shm_coop.h): decided by measurement.
// Sharing a get of a few hundred KiB pays when the copy is bound by memory (buffers the caches
// no longer hold: two cores keep twice the misses in flight; MPI bandwidth at 512 KiB over 64
// distinct receive slots 4861 -> 7773 MB/s) and in a ping-pong (the target is idle anyway:
// tag_lat 128 KiB 12.0 -> 9.8 us), but loses when one hot buffer is streamed again and again:
// the target's writes pull the destination's lines into its own cache, and the initiator's
// next copy must take them back (tag_bw 128 KiB 11186 -> 7695 MB/s). Neither the size nor the
// address says which case a get is, so the process times its own gets in the range.
//
// Gets go in epochs of kEpochGets, all plain or all shared. An epoch's rate is its bytes over
// the time from its first get to the first get after it, so whatever a mode costs between
// gets (the target's copy, lines moving back) counts against it. A cycle starts with one
// epoch of each mode, then runs the mode with the better average rate. A probe costs more
// than its own epoch (after shared gets, plain ones run slower for a while: tag_bw 128 KiB
// lost 12-20 % with every 16th epoch a shared probe), so each cycle that confirms the winner
// doubles the next one's length, from kCycleEpochs up to kMaxCycleEpochs (probes then cost
// under 1 %); a new winner brings it back to kCycleEpochs. An epoch with a gap of more than
// kGapNs between two gets (the program did something else) is restarted, so idle time never
// counts against either mode.
#pragma once

#include <cstddef>
#include <cstdint>

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
  bool choose(size_t length, uint64_t now_ns) noexcept;

  // Average rates in bytes per ns (0 until measured), and epochs completed, for tests and
  // diagnostics.
  double rate(bool shared) const noexcept { return rate_[shared ? 1 : 0]; }
  uint64_t epochs() const noexcept { return epochs_; }

 private:
  bool next_mode() const noexcept;

  uint64_t lo_, hi_;
  bool shared_ = false;  // the running epoch's mode
  uint32_t epoch_in_cycle_ = 0;
  uint32_t cycle_epochs_ = kCycleEpochs;
  bool last_winner_ = false;
  uint32_t gets_ = 0;  // gets of the running epoch so far
  uint64_t bytes_ = 0;
  uint64_t start_ns_ = 0, last_ns_ = 0;
  uint64_t epochs_ = 0;
  double rate_[2] = {0, 0};
};

}  // namespace torus::shm
