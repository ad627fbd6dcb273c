// The measured two-way choice of epoch_ab.h.
#include "core/base/epoch_ab.h"

#include <algorithm>

namespace torus {

bool EpochAb::choose_slow(uint64_t bytes, uint64_t now_ns) noexcept {
  if (p_.gap_ns != 0 && ops_ > 0 && now_ns - last_ns_ > p_.gap_ns) {
    ops_ = 0;
    bytes_ = 0;
  }
  if (ops_ == p_.epoch_ops) end_epoch(now_ns);
  if (ops_ == 0) start_ns_ = now_ns;
  ++ops_;
  bytes_ += bytes;
  last_ns_ = now_ns;
  return mode_;
}

void EpochAb::end_epoch(uint64_t now_ns) noexcept {
  const uint64_t took = now_ns - start_ns_;
  const uint64_t bytes = bytes_;
  ops_ = 0;
  bytes_ = 0;
  if (p_.gap_ns == 0 && p_.max_epoch_ns != 0 && took > p_.max_epoch_ns)
    return;  // the program was busy elsewhere: run this epoch again
  if (timed(epoch_in_cycle_) && took > 0) {
    double& best = best_[mode_ ? 1 : 0];
    best = std::max(best, static_cast<double>(bytes) / static_cast<double>(took));
  }
  ++epochs_;
  if (++epoch_in_cycle_ == cycle_epochs_) epoch_in_cycle_ = 0;
  if (epoch_in_cycle_ == probe_end()) {
    rate_[0] = best_[0];
    rate_[1] = best_[1];
    best_[0] = best_[1] = 0;
    const bool winner = rate_[!winner_] > rate_[winner_] ? !winner_ : winner_;
    // A winner that held probes again later, a new one sooner.
    const bool clear = p_.clear_margin > 0 && rate_[winner] > p_.clear_margin * rate_[!winner];
    cycle_epochs_ = winner == winner_
                        ? std::min((clear ? 4 : 2) * cycle_epochs_, p_.max_cycle_epochs)
                        : p_.cycle_epochs;
    winner_ = winner;
  }
  mode_ = mode_at(epoch_in_cycle_);
}

}  // namespace torus
