// Test helpers: a Registrar that records every registration, and a log of memory the test
// released, which together prove that no lookup returned a registration of freed pages.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "memory/rcache.h"

namespace torus::mem::test {

// A monotonic clock of test events (registrations and frees), so "registered before that
// memory was freed" is a comparison.
inline uint64_t next_tick() {
  static std::atomic<uint64_t> t{0};
  return ++t;
}

class RecordingRegistrar final : public Registrar {
 public:
  struct Record {
    uintptr_t start = 0, end = 0;
    uint32_t access = 0;
    uint64_t registered_at = 0;
    bool live = true;
  };

  Result<void*> reg(void* addr, size_t len, uint32_t access) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fail_next_ != Status::Ok) {
      const Status s = fail_next_;
      fail_next_ = Status::Ok;
      return make_error(s, "injected failure");
    }
    if (capacity_ != 0 && live_count() >= capacity_)
      return make_error(Status::NoMemory, "test registrar full");
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    records_.push_back({a, a + len, access, next_tick(), true});
    // Handles are 1-based indices into records_: never reused, so a stale one is visible.
    return reinterpret_cast<void*>(records_.size());
  }
  void dereg(void* handle) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t i = reinterpret_cast<size_t>(handle) - 1;
    CHECK(i < records_.size());
    CHECK(records_[i].live);  // deregistered once only
    records_[i].live = false;
    ++deregs_;
  }

  Record record(void* handle) {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.at(reinterpret_cast<size_t>(handle) - 1);
  }
  size_t regs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }
  size_t deregs() {
    std::lock_guard<std::mutex> lock(mutex_);
    return deregs_;
  }
  size_t live() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_count();
  }
  void fail_next(Status s) { fail_next_ = s; }
  void set_capacity(size_t n) { capacity_ = n; }

 private:
  size_t live_count() const { return records_.size() - deregs_; }
  std::mutex mutex_;
  std::vector<Record> records_;
  size_t deregs_ = 0;
  Status fail_next_ = Status::Ok;
  size_t capacity_ = 0;
};

// What the test gave back to the kernel, and when.
class FreeLog {
 public:
  // Called just before the pages go: a registration made after this call may still have
  // seen the old pages, so only one made before it is provably stale.
  void freed(const void* p, size_t len) {
    std::lock_guard<std::mutex> lock(mutex_);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    frees_.push_back({a, a + len, next_tick()});
  }
  // The registration behind `ref` is stale when any of its pages were freed after it was
  // registered (ticks: registration strictly before the free began). Returns false (and says why) for a stale one.
  bool fresh(RecordingRegistrar& reg, const RegRef& ref) {
    const RecordingRegistrar::Record rec = reg.record(ref.handle());
    CHECK(rec.live);
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Free& f : frees_) {
      if (f.at > rec.registered_at && f.start < rec.end && rec.start < f.end) {
        MESSAGE("stale registration [" << rec.start << ", " << rec.end << ") registered at "
                                       << rec.registered_at << ", memory freed at " << f.at);
        return false;
      }
    }
    return true;
  }

 private:
  struct Free {
    uintptr_t start, end;
    uint64_t at;
  };
  std::mutex mutex_;
  std::vector<Free> frees_;
};

inline RcacheConfig test_config(uint64_t max_regions = 1000, uint64_t max_bytes = 1ull << 40) {
  RcacheConfig c;
  c.mode = RcacheMode::On;
  c.max_unused_regions = max_regions;
  c.max_unused_bytes = max_bytes;
  return c;
}

inline std::unique_ptr<RegCache> make_cache(RecordingRegistrar& r, RcacheConfig c = test_config(),
                                            UnmapMonitor* monitor = nullptr) {
  auto cache = RegCache::create(r, c, "test", monitor);
  REQUIRE_MESSAGE(cache.ok(), (cache.ok() ? "" : cache.error().message));
  return std::move(cache.value());
}

inline size_t page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace torus::mem::test
