// How long a blocking wait polls before it sleeps, lengthened while sleeping does not pay.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace torus::core {

// Two processes answering each other (a ping-pong, a collective's steps) can fall into a
// trap with a fixed spin: once one of them sleeps, the other's next message costs a
// wake-up, and if a wake-up takes longer than the spin (a busy host, a halted vCPU) the
// answer always arrives after the waiting side gave up polling, so every message pays a
// wake-up from then on. A wait that outlasted the spin and still ended soon after is the
// sign: the next spin covers twice that wait. Waits that outlast the bound are a peer busy
// with other work, where polling only burns the CPU: each halves the spin towards its base.
// Threads of a multi-threaded worker share one policy, hence the relaxed atomic: a lost
// update only delays the adaptation by a wait.
class SpinPolicy {
 public:
  using ns = std::chrono::nanoseconds;

  void configure(ns base, ns max) noexcept {
    base_ = base.count();
    max_ = std::max(base, max).count();
    current_.store(base_, std::memory_order_relaxed);
  }

  ns current() const noexcept { return ns(current_.load(std::memory_order_relaxed)); }
  ns max() const noexcept { return ns(max_); }

  // A wait polled for current(), went on to sleep, and completed `elapsed` after it began.
  void outlasted(ns elapsed) noexcept {
    const int64_t e = elapsed.count();
    const int64_t cur = current_.load(std::memory_order_relaxed);
    const int64_t next = e < max_ ? std::min(max_, std::max(cur, 2 * e)) : std::max(base_, cur / 2);
    current_.store(next, std::memory_order_relaxed);
  }

 private:
  int64_t base_ = 0;
  int64_t max_ = 0;
  std::atomic<int64_t> current_{0};
};

}  // namespace torus::core
