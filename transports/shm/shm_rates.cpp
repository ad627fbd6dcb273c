// Measuring the shm cost model's machine-dependent numbers (shm_rates.h).
#include "transports/shm/shm_rates.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <vector>

#include "transports/shm/shm_cma.h"

namespace torus::shm {

double measure_cma_fixed_ns() noexcept {
  constexpr size_t kBytes = 4096;
  constexpr int kWarm = 2, kTimed = 16;
  // Page-aligned so that the kernel copies at distance 0 (shm_cma.h): a peer's buffers are
  // rarely at a slow one, and the fixed cost is what is measured here.
  std::vector<std::byte> buf(3 * kBytes);
  const uintptr_t base = reinterpret_cast<uintptr_t>(buf.data());
  std::byte* src = reinterpret_cast<std::byte*>((base + kBytes - 1) & ~uintptr_t{kBytes - 1});
  std::byte* dst = src + kBytes;
  std::fill(src, src + kBytes, std::byte{1});
  const pid_t self = getpid();
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kWarm + kTimed; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const int err = cma_read(self, {dst, kBytes}, reinterpret_cast<uint64_t>(src), false);
    const auto t1 = std::chrono::steady_clock::now();
    if (err != 0) return -1;
    const std::chrono::duration<double, std::nano> took = t1 - t0;
    if (i >= kWarm) best = std::min(best, took.count());
  }
  return best;
}

bool CopyOutRate::record(double bytes, double ns) noexcept {
  if (ns <= 0) return false;
  window_best_ = std::max(window_best_, bytes * 1e9 / ns);
  if (++samples_ < kWindow) return false;
  const double next = window_best_;
  samples_ = 0;
  window_best_ = 0;
  const bool moved = estimate_ == 0 || next > estimate_ * 1.1 || next < estimate_ * 0.9;
  if (moved) estimate_ = next;
  return moved;
}

}  // namespace torus::shm
