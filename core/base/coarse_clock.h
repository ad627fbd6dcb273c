// A clock for rare housekeeping checks in polling loops: CLOCK_MONOTONIC_COARSE is read from
// the vDSO without a system call and costs a fraction of a full clock read, at the price of a
// resolution of one scheduler tick (1-4 ms).
#pragma once

#include <time.h>

#include <cstdint>

namespace torus {

inline int64_t coarse_now_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace torus
