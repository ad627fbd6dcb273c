// The measured choice of shm_coop_policy.h.
#include "transports/shm/shm_coop_policy.h"

#include <algorithm>

namespace torus::shm {

bool CoopPolicy::choose(size_t length, uint64_t now_ns) noexcept {
  if (gets_ > 0 && now_ns - last_ns_ > kGapNs) {
    gets_ = 0;
    bytes_ = 0;
  }
  if (gets_ == kEpochGets) {
    if (now_ns > start_ns_) {
      const double r = static_cast<double>(bytes_) / static_cast<double>(now_ns - start_ns_);
      double& avg = rate_[shared_ ? 1 : 0];
      avg = avg == 0 ? r : (avg + r) / 2;
    }
    ++epochs_;
    if (++epoch_in_cycle_ == cycle_epochs_) epoch_in_cycle_ = 0;
    shared_ = next_mode();
    if (epoch_in_cycle_ == 2) {
      // Both probed: a winner that held probes again longer, a new one sooner.
      cycle_epochs_ = shared_ == last_winner_ ? std::min(2 * cycle_epochs_, kMaxCycleEpochs)
                                              : kCycleEpochs;
      last_winner_ = shared_;
    }
    gets_ = 0;
    bytes_ = 0;
  }
  if (gets_ == 0) start_ns_ = now_ns;
  ++gets_;
  bytes_ += length;
  last_ns_ = now_ns;
  return shared_;
}

bool CoopPolicy::next_mode() const noexcept {
  if (epoch_in_cycle_ == 0) return false;
  if (epoch_in_cycle_ == 1) return true;
  return rate_[1] > rate_[0];
}

}  // namespace torus::shm
