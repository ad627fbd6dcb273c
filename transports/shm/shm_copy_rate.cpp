#include "transports/shm/shm_copy_rate.h"

#include <algorithm>

namespace torus::shm {

bool CopyRate::record(size_t bytes, double ns) noexcept {
  if (bytes < kMinBytes || ns < 0) return false;
  recent_[samples_ % kWindow] = ns * 1024.0 / static_cast<double>(bytes);
  if (++samples_ < kWindow) return false;
  std::array<double, kWindow> sorted = recent_;
  std::nth_element(sorted.begin(), sorted.begin() + 1, sorted.end());
  low_ = sorted[1];
  const bool was = fast_;
  if (fast_ && low_ > kSlowAboveNsPerKiB) fast_ = false;
  else if (!fast_ && low_ < kFastBelowNsPerKiB) fast_ = true;
  return fast_ != was;
}

}  // namespace torus::shm
