#include "transports/shm/shm_placement.h"

namespace torus::shm {

bool Placement::calibrated() noexcept {
#if defined(__x86_64__)
  if (ns_per_tick_ > 0) return true;
  const uint64_t ticks = line_clock_end();
  const auto now = std::chrono::steady_clock::now();
  if (!calibrating_) {
    calibrating_ = true;
    cal_ticks_ = ticks;
    cal_start_ = now;
    return false;
  }
  const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - cal_start_).count();
  if (ns < kCalibrateNs || ticks <= cal_ticks_) return false;
  ns_per_tick_ = static_cast<double>(ns) / static_cast<double>(ticks - cal_ticks_);
#endif
  return true;
}

bool Placement::record_ticks(uint64_t ticks) noexcept {
  if (!calibrated()) return false;
  return record_ns(static_cast<double>(ticks) * ns_per_tick_);
}

bool Placement::record_ns(double ns) noexcept {
  if (ns < 0) return false;
  slow_ = (slow_ << 1) | (ns > kSlowNs ? 1u : 0u);
  if (samples_ < kWindow && ++samples_ < kWindow) return false;
  const unsigned slow = slow_loads();
  const bool was = near_;
  if (near_ && slow >= kFarFrom) near_ = false;
  else if (!near_ && slow <= kNearUpTo) near_ = true;
  return near_ != was;
}

}  // namespace torus::shm
