// The process-wide unmap monitor: tells subscribers which address ranges lost their pages
// (munmap, mremap, madvise DONTNEED/FREE/REMOVE, brk shrink, shmdt, mmap MAP_FIXED over a
// mapping), so registrations of those pages are dropped before anyone reuses them.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/base/status.h"

namespace torus::mem {

struct Range {
  uintptr_t start = 0;
  uintptr_t end = 0;  // exclusive
};

// Reported to a subscriber that fell more than kLogSize events behind: everything is stale.
inline constexpr Range kEverything{0, UINTPTR_MAX};

// How it works. The kernel's userfaultfd reports UNMAP/REMOVE/REMAP events for ranges
// registered with it (watch()), including glibc's internal munmap inside free() and brk
// shrinks, which no interposed symbol sees. The unmapping thread blocks until the event is
// read, so a dedicated thread reads events as soon as they arrive and appends them to an
// event log (a ring of kLogSize ranges).
//
// Subscribers pull: each keeps a Subscription (a cursor into the log) and calls drain()
// before trusting what it cached. Events are not pushed through callbacks on the monitor
// thread because any lock such a callback took could be held by a thread that is itself
// blocked in munmap waiting for the monitor: a deadlock. The monitor thread therefore never
// allocates, frees or takes any lock but the log's, which nobody holds across a syscall.
//
// Ordering guarantee: when munmap (or free, madvise, ...) returns in any thread, a drain()
// that starts afterwards (in that thread, or in one synchronised with it) reports the range.
// The monitor bumps seq_ to odd before reading events and back to even after appending them,
// both under the log's lock; the unmapping thread is released by the read, so it sees seq_
// changed, and drain() waits on the lock for the append to finish.
//
// Thread-safe. One instance per process (instance()); after fork() the child gets a fresh
// one on first use, and the parent's instance refuses to work there.
class UnmapMonitor final {
 public:
  static constexpr size_t kLogSize = 4096;

  class Subscription {
   public:
    Subscription() = default;

   private:
    friend class UnmapMonitor;
    uint64_t seen_seq_ = 0;  // seq_ at the last complete drain
    uint64_t cursor_ = 0;    // next log index to report
  };

  struct Counters {
    uint64_t unmap = 0;   // UFFD_EVENT_UNMAP: munmap, brk shrink, mremap shrink, MAP_FIXED
    uint64_t remove = 0;  // UFFD_EVENT_REMOVE: madvise DONTNEED/FREE/REMOVE
    uint64_t remap = 0;   // UFFD_EVENT_REMAP: mremap move
    uint64_t reported = 0;  // report() from other layers
    uint64_t watched = 0;   // successful watch() calls
    uint64_t watch_refused = 0;
  };

  // The process-wide monitor, started on first use. Logs (info) which monitor is active and
  // warns when another library interposes or patches the memory-release functions.
  static UnmapMonitor& instance();
  // A monitor that works nowhere, for tests of the fallback path.
  static std::unique_ptr<UnmapMonitor> make_unavailable(std::string why);

  ~UnmapMonitor();
  UnmapMonitor(const UnmapMonitor&) = delete;
  UnmapMonitor& operator=(const UnmapMonitor&) = delete;

  // True when unmaps are reported (userfaultfd works, this process is the one that created
  // the monitor, and the monitor thread is alive).
  bool active() const noexcept;
  // "userfaultfd", or "none".
  const char* name() const noexcept { return active() ? "userfaultfd" : "none"; }
  // Why the monitor is not active (empty when it is).
  std::string why_unavailable() const;

  // Starts reporting unmaps of the pages of [addr, addr + len). Unsupported, with the
  // reason in `why`, when the range cannot be watched: not fully mapped, a file-backed or
  // special mapping that userfaultfd refuses, or one another userfaultfd already watches.
  // A watch is not removed when the caller loses interest: it only costs a monitor wakeup
  // when the memory is finally unmapped.
  [[nodiscard]] Status watch(const void* addr, size_t len, std::string* why = nullptr);

  // Adds a range to the log as if the kernel had reported it: for layers that learn of
  // invalidations another way (a CUDA free hook), and for tests.
  void report(Range r);

  // A new cursor at the current end of the log: earlier events are not reported to it.
  Subscription subscribe();

  // True when drain() may report something: one atomic load, for fast paths.
  bool pending(const Subscription& s) const noexcept {
    return seq_.load(std::memory_order_acquire) != s.seen_seq_;
  }

  // Calls fn(Range) for each range logged since the subscription's last drain, outside the
  // log's lock (fn may allocate, free, take its own locks). A subscriber that fell more than
  // kLogSize events behind gets kEverything once.
  template <typename Fn>
  void drain(Subscription& s, Fn&& fn) {
    Range batch[kBatch];
    for (;;) {
      const size_t n = fetch(s, batch, kBatch);
      for (size_t i = 0; i < n; ++i) fn(batch[i]);
      if (n < kBatch) break;
    }
  }

  Counters counters() const;
  std::string status_text() const;  // for torus_info

 private:
  static constexpr size_t kBatch = 64;
  struct Unavailable {};
  explicit UnmapMonitor(Unavailable, std::string why);
  UnmapMonitor();

  void start();
  void run() noexcept;
  void append_locked(Range r) noexcept;
  size_t fetch(Subscription& s, Range* out, size_t max);

  const uint64_t generation_;
  int uffd_ = -1;
  int stop_fd_ = -1;
  std::atomic<bool> thread_alive_{false};
  std::string why_;

  mutable std::mutex log_mutex_;
  std::atomic<uint64_t> seq_{0};  // odd while the monitor thread is reading events
  uint64_t head_ = 0;             // log entries ever appended
  std::array<Range, kLogSize> log_{};
  Counters counters_;
  std::thread thread_;

  friend void monitor_fork_child() noexcept;
};

}  // namespace torus::mem
