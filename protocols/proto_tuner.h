// Eager or rendezvous for mid-size tag sends, chosen by timing the sends themselves.
//
// Where eager and a rendezvous cross over depends on things the cost model can only guess:
// a CMA read's fixed cost (0.4 us on an Intel VM, 2 us on the AMD ones), the rate of the
// receiver's copy out of a segment (9-25 GB/s), whether the peer is sending too. On the
// Intel VM the model kept 8-20 KiB eager where a rendezvous won (MPI latency 8 KiB 1.53 ->
// 1.34 us, bidirectional 16 KiB 15.7 -> 21.8 GB/s), and its measured copy-out rate moved the
// crossover between 11 KiB and 256 KiB from one revision to the next.
//
// So in a band of sizes where both can go, each half-octave of sizes has an EpochAb (core/
// base/epoch_ab.h) over the endpoint's sends: epochs of kEpochSends, eager (mode A) or
// rendezvous (mode B), rated by bytes over the time to the epoch's next send. The time
// between a program's sends to one peer is what a protocol changes for it: a round trip in
// a ping-pong, a window's turnaround in a stream. The clock is read once per epoch. An epoch
// longer than kMaxEpochNs (a program that computes between sends) is run again. Each size
// starts from the cost model's choice, and keeps it where its epochs never fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/epoch_ab.h"
#include "protocols/selector.h"

namespace torus::proto {

struct TuneBand {
  size_t lo = 0, hi = 0;  // sizes [lo, hi); empty when lo >= hi
  ProtoId rndv = ProtoId::RndvGet;  // the rendezvous to measure against eager_bcopy
};

// The band for an endpoint: none when the user chose the protocol or the threshold, or when
// only one of eager_bcopy and a rendezvous can go. With an eager cap (shm), from kMinSize to
// the cap; without one, within kSpan of the model's first rendezvous (`model_rndv`).
TuneBand tune_band(const LaneInfo& am, const LaneInfo* rma, const SelectorConfig& cfg,
                   size_t model_rndv);

class ProtoTuner {
 public:
  // Below kMinSize eager wins by more than probes can gain (4 KiB: latency 1.06 us against
  // 1.25, bidirectional 12.8 GB/s against 7.4, on the machine where a CMA read is cheapest);
  // above kMaxSize the probes cost more than the choice gains (with the band up to 64 KiB:
  // latency 64 KiB 3.59 us against the model's 3.47, bidirectional 27.8 GB/s against 29.1;
  // an eager epoch of 256 KiB messages takes twice a rendezvous's), and the model decides.
  static constexpr size_t kMinSize = 4096;
  static constexpr size_t kMaxSize = 32 << 10;
  static constexpr size_t kSpan = 4;
  // An epoch spans two windows of the usual bandwidth benchmarks (a shorter one would time
  // a burst of Isends, not the window's turnaround); the two untimed ones, a lap of shm's
  // eager ring.
  static constexpr uint32_t kEpochSends = 128;
  static constexpr uint64_t kMaxEpochNs = 50'000'000;
  static constexpr EpochAbParams kParams{.epoch_ops = kEpochSends,
                                         .probe_epochs = 2,
                                         .warm_epochs = 2,
                                         .cycle_epochs = 16,
                                         .max_cycle_epochs = 1024,
                                         .clear_margin = 1.25,
                                         .gap_ns = 0,
                                         .max_epoch_ns = kMaxEpochNs};

  // `model`: the cost model's table, whose choice each size starts from.
  ProtoTuner(const TuneBand& band, const ProtoTable& model);

  bool in_band(size_t length) const noexcept { return length >= lo_ && length < hi_; }
  // A send of `length` bytes (in the band): true for the rendezvous.
  bool choose(size_t length) noexcept {
    EpochAb& ab = buckets_[bucket(length) - first_];
    return ab.choose(length, ab.needs_time() ? now_ns() : 0);
  }
  // Half-octaves: 2048, 3072, 4096, 6144, ... start buckets.
  static unsigned bucket(size_t length) noexcept {
    const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(length | 2));
    return 2 * top + static_cast<unsigned>((length >> (top - 1)) & 1);
  }
  static size_t bucket_start(unsigned b) noexcept {
    const unsigned top = b / 2;
    return (size_t{1} << top) | (size_t{b & 1} << (top - 1));
  }
  const EpochAb& at(size_t length) const noexcept { return buckets_[bucket(length) - first_]; }
  // One line per size measured so far: the rates of the last probe and the winner.
  std::string describe(ProtoId rndv) const;
  size_t lo() const noexcept { return lo_; }
  size_t hi() const noexcept { return hi_; }

 private:
  static uint64_t now_ns() noexcept;

  size_t lo_, hi_;
  unsigned first_;
  std::vector<EpochAb> buckets_;
};

}  // namespace torus::proto
