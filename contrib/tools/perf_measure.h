// What torus_perf's test files (perf_session.cpp, perf_tests.cpp, perf_rma.cpp) share: the
// clock, am_lat's active-message ids, message buffers, the check of received data, and the
// windows of the bandwidth tests and their results.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "contrib/tools/perf_tests.h"

namespace torus::perf {

using Clock = std::chrono::steady_clock;

inline constexpr unsigned kAmPing = 1;
inline constexpr unsigned kAmPong = 2;
inline constexpr unsigned kAmProbe = 3;

inline constexpr double kMB = 1024.0 * 1024.0;

// A message buffer: at least one byte so that size 0 still has a valid address; pages
// touched up front so that first-touch faults stay out of the timings.
std::vector<std::byte> make_buffer(size_t size);

inline double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// Records in cs the first byte of `got` off the pattern of (iter, size, dir), unless cs
// already holds a corruption: only the first is reported.
void verify(CheckState& cs, std::span<const std::byte> got, uint64_t iter, size_t size,
            unsigned dir);

// The windows of tag_bw, put_bw and get_bw: warm-up windows of `window` messages, then the
// timed ones, the last partial. Both sides derive the same plan from the parameters.
struct WindowPlan {
  std::vector<uint32_t> counts;
  size_t first_timed = 0;
};
WindowPlan plan_windows(const SizePlan& p, unsigned window);

// Result of a windowed bandwidth test (tag_bw, put_bw, get_bw) from its timed windows.
SizeResult window_result(const SizePlan& p, std::vector<double> per_msg_us,
                         std::vector<double> window_MBps, uint64_t total_msgs, double total_us);

}  // namespace torus::perf
