// A choice between two ways of doing one kind of operation, made by timing the program's own
// operations: where a model cannot say which is faster on this machine (it differs between
// VM types by more than the two ways differ), the process runs both and keeps the faster.
//
// Operations go in epochs of `epoch_ops`, all in one mode. An epoch's rate is its bytes over
// the time from its first operation to the first one after it, so whatever a mode costs
// between operations (the peer's work, a reply, lines moving back) counts against it.
//
// A cycle opens with a probe: `probe_epochs` epochs of the running winner W (mode A at
// first), then `warm_epochs` of the other mode L that are not timed, then `probe_epochs` of
// L. It then runs the mode whose fastest probe epoch was the faster (W on a tie) for the rest
// of the cycle. The untimed epochs are for a mode whose first operations after a switch pay
// for it: shm's eager ring of 256 segments is cold after a run of rendezvous (MPI latency
// 4 KiB, epochs of 1024 sends: eager 2.1 ms just after eager, 2.4 ms just after a rendezvous).
// Only this cycle's probes count, so the loser's old conditions (a warm-up, another phase of
// the program) are never compared with the winner's new ones; the fastest epoch, not the
// mean, because what disturbs an epoch (an interrupt, the peer descheduled) only slows it.
// Each cycle that confirms the winner doubles the next one's length (quadruples it when the
// winner's rate is more than `clear_margin` times the loser's), from cycle_epochs up to
// max_cycle_epochs, so probing ends up costing about 1 %; a new winner brings the length
// back to cycle_epochs.
//
// Two ways to keep time the program spent elsewhere out of the rates:
//  - gap_ns > 0: every operation passes the time, and a gap longer than gap_ns between two of
//    them restarts the epoch;
//  - gap_ns == 0: only an epoch's boundaries read the clock (one read per epoch_ops
//    operations, for operations too short to pay one each), and an epoch that took longer
//    than max_epoch_ns is run again.
// Both peers of a symmetric exchange (a ping-pong) run the same sequence at the same
// operations, so while they agree on the winner each measures both directions in one mode.
#pragma once

#include <cstdint>

namespace torus {

struct EpochAbParams {
  uint32_t epoch_ops = 8;
  uint32_t probe_epochs = 1;  // timed epochs of each mode per cycle
  uint32_t warm_epochs = 0;   // untimed epochs after switching to the loser
  uint32_t cycle_epochs = 16;
  uint32_t max_cycle_epochs = 256;
  double clear_margin = 0;  // 0: always double
  uint64_t gap_ns = 0;
  uint64_t max_epoch_ns = 0;  // with gap_ns == 0; 0: no limit
};

class EpochAb {
 public:
  // `first`: the mode a first cycle starts with, as the running winner.
  explicit EpochAb(const EpochAbParams& p, bool first = false) noexcept
      : p_(p), mode_(first), winner_(first), cycle_epochs_(p.cycle_epochs) {}

  // Whether the next choose() needs the time; when false it may be passed 0.
  bool needs_time() const noexcept {
    return p_.gap_ns != 0 || ops_ == 0 || ops_ == p_.epoch_ops;
  }
  // The mode of the next operation of `bytes` bytes, starting at `now_ns` (a monotonic
  // clock): false for mode A, true for mode B.
  bool choose(uint64_t bytes, uint64_t now_ns) noexcept {
    if (p_.gap_ns == 0 && ops_ != 0 && ops_ < p_.epoch_ops) {  // inside an epoch
      ++ops_;
      bytes_ += bytes;
      return mode_;
    }
    return choose_slow(bytes, now_ns);
  }

  // Each mode's fastest timed epoch of the last finished probe, in bytes per ns (0 until
  // then), and epochs completed: for tests and diagnostics.
  double rate(bool mode_b) const noexcept { return rate_[mode_b ? 1 : 0]; }
  uint64_t epochs() const noexcept { return epochs_; }
  bool winner() const noexcept { return winner_; }

 private:
  uint32_t probe_end() const noexcept { return 2 * p_.probe_epochs + p_.warm_epochs; }
  bool timed(uint32_t i) const noexcept {
    return i < p_.probe_epochs || (i >= p_.probe_epochs + p_.warm_epochs && i < probe_end());
  }
  bool mode_at(uint32_t i) const noexcept {
    return i < p_.probe_epochs || i >= probe_end() ? winner_ : !winner_;
  }
  bool choose_slow(uint64_t bytes, uint64_t now_ns) noexcept;
  void end_epoch(uint64_t now_ns) noexcept;

  EpochAbParams p_;
  bool mode_ = false;    // the running epoch's mode
  bool winner_ = false;  // of the last probe
  uint32_t epoch_in_cycle_ = 0;
  uint32_t cycle_epochs_;
  uint32_t ops_ = 0;  // operations of the running epoch so far
  uint64_t bytes_ = 0;
  uint64_t start_ns_ = 0, last_ns_ = 0;
  uint64_t epochs_ = 0;
  double best_[2] = {0, 0};  // the running probe's
  double rate_[2] = {0, 0};
};

}  // namespace torus
