// The registration cache's lock. Its critical sections are almost always short and
// uncontended (a lookup and a reference count), and a cache hit takes it twice, so its cost is
// the hit's cost: taking it is one atomic exchange and releasing it a plain store, where
// std::mutex pays an atomic read-modify-write both ways plus a call into libc (~60 -> ~45 ns
// per hit here). The price is that a waiter never sleeps: it spins briefly, then yields the
// CPU between tries, so a thread waiting on a long registration (a miss that pins memory
// for milliseconds) costs scheduler turns instead of a futex sleep. UCX's rcache makes the
// same trade with a spinlock.
#pragma once

#include <sched.h>

#include <atomic>

namespace torus::mem {

// `enabled` false makes it a no-op, for an owner that serialises its calls itself.
class ShortLock {
 public:
  explicit ShortLock(bool enabled = true) noexcept : enabled_(enabled) {}

  void lock() noexcept {
    if (!enabled_) return;
    if (!held_.exchange(true, std::memory_order_acquire)) [[likely]]
      return;
    lock_slow();
  }
  bool try_lock() noexcept {
    return !enabled_ || !held_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept {
    if (enabled_) held_.store(false, std::memory_order_release);
  }

 private:
  static void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  void lock_slow() noexcept {
    for (unsigned i = 0;; ++i) {
      if (!held_.load(std::memory_order_relaxed) &&
          !held_.exchange(true, std::memory_order_acquire))
        return;
      if (i < 128) cpu_relax();
      else sched_yield();
    }
  }

  const bool enabled_;
  std::atomic<bool> held_{false};
};

}  // namespace torus::mem
