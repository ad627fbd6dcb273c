// The registration cache: registrations of address ranges (made by a transport's Registrar)
// kept for reuse, found in O(log n), merged when requests overlap, evicted LRU when unused,
// and dropped as soon as the unmap monitor reports that their pages went away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "memory/fork_guard.h"
#include "memory/interval_map.h"
#include "memory/rcache_config.h"
#include "memory/short_lock.h"
#include "memory/unmap_monitor.h"

namespace torus::mem {

// Supplied by each transport. reg() registers the page-aligned range [addr, addr + len) with
// `access` rights (the transport's own bitmask; the cache only compares masks) and returns a
// handle the cache passes back to dereg(). Both run under the cache's lock and may block,
// allocate and free memory; they must not call into the same cache. reg() failing with
// NoMemory or NoResource makes the cache release its unused regions and retry once.
class Registrar {
 public:
  virtual ~Registrar() = default;
  virtual Result<void*> reg(void* addr, size_t len, uint32_t access) = 0;
  virtual void dereg(void* handle) noexcept = 0;
};

struct RcacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;          // registrations made (cached or not)
  uint64_t merges = 0;          // cached regions folded into a larger new one
  uint64_t evictions = 0;       // unused regions released by the LRU limits or for room
  uint64_t invalidations = 0;   // cached regions dropped because their pages went away
  uint64_t uncached = 0;        // registrations that could not be cached (released after use)
  uint64_t failures = 0;        // reg() errors returned to the caller
  uint64_t regions = 0;         // cached now
  uint64_t bytes = 0;
  uint64_t unused_regions = 0;  // cached, no operation using them
  uint64_t unused_bytes = 0;
  uint64_t pending_deregs = 0;  // invalidated, deregistered when the last user releases
};

class RegCache;

namespace detail {
struct Region {
  uintptr_t start = 0;
  uintptr_t end = 0;
  uint32_t access = 0;
  void* handle = nullptr;
  uint32_t refs = 0;
  bool in_map = false;   // findable; false once invalidated, merged away, or never cacheable
  bool dropped = false;  // left the map while in use: deregistered at the last release
  Region* lru_prev = nullptr;  // unused cached regions, most recently released first
  Region* lru_next = nullptr;
  std::list<Region>::iterator self;
};
}  // namespace detail

// One use of a registration: keeps it alive (an invalidated region is deregistered only after
// its last RegRef goes). Move-only; must not outlive its cache.
class RegRef {
 public:
  RegRef() = default;
  RegRef(RegRef&& o) noexcept : cache_(o.cache_), region_(o.region_) { o.region_ = nullptr; }
  RegRef& operator=(RegRef&& o) noexcept;
  RegRef(const RegRef&) = delete;
  RegRef& operator=(const RegRef&) = delete;
  ~RegRef() { reset(); }

  explicit operator bool() const noexcept { return region_ != nullptr; }
  void* handle() const noexcept { return region_->handle; }
  // The registered range, which contains the requested one (page aligned, maybe merged).
  uintptr_t start() const noexcept { return region_->start; }
  uintptr_t end() const noexcept { return region_->end; }
  uint32_t access() const noexcept { return region_->access; }
  void reset() noexcept;

 private:
  friend class RegCache;
  RegRef(RegCache* c, detail::Region* r) : cache_(c), region_(r) {}
  RegCache* cache_ = nullptr;
  detail::Region* region_ = nullptr;
};

// Thread-safe through one lock (unless RcacheConfig::serialised_by_caller says the owner
// serialises its calls): transports call it from their worker's progress thread, so
// contention is rare, and holding the lock across reg() keeps merging simple and stops two
// threads from registering the same buffer twice. A hit is a lock, one atomic load (pending
// invalidations?) and a lookup that usually ends in IntervalMap's hint table.
class RegCache final {
 public:
  // `monitor` nullptr: the process-wide one. Fails only for TORUS_RCACHE=y without a working
  // monitor; otherwise a cache without one registers per operation (and says so once).
  static Result<std::unique_ptr<RegCache>> create(Registrar& registrar, const RcacheConfig& cfg,
                                                  std::string name,
                                                  UnmapMonitor* monitor = nullptr);
  ~RegCache();
  RegCache(const RegCache&) = delete;
  RegCache& operator=(const RegCache&) = delete;

  // A registration covering [addr, addr + len) with at least `access`. Errors: InvalidParam
  // (len 0), the registrar's error, or Unsupported in a fork()ed child (registrations belong
  // to the parent; the child must create its own context).
  Result<RegRef> get(const void* addr, size_t len, uint32_t access);

  // Applies pending invalidations now (get and release do it anyway), so pinned pages of
  // freed memory are let go without waiting for the next get.
  void flush_invalidations();

  bool caching() const noexcept { return caching_; }
  const std::string& name() const noexcept { return name_; }
  RcacheStats stats() const;
  std::string stats_text() const;  // a few lines, for torus_info and the exit report

 private:
  RegCache(Registrar& registrar, const RcacheConfig& cfg, std::string name,
           UnmapMonitor* monitor, bool caching);
  friend class RegRef;
  using Region = detail::Region;

  void release(Region* r) noexcept;
  bool forked() const noexcept { return generation_ != fork_generation(); }
  Error forked_error() const;
  void drain_locked();
  void invalidate_locked(Range r);
  void drop_locked(Region* r);  // out of the map; deregistered now if unused
  void lru_unlink(Region* r) noexcept;
  void lru_push_front(Region* r) noexcept;
  void enforce_limits_locked();
  void evict_locked(Region* r);
  void destroy_locked(Region* r) noexcept;
  Result<void*> register_locked(uintptr_t start, uintptr_t end, uint32_t access,
                                std::vector<Region*>& merged);
  void drop_merged_locked(std::vector<Region*>& merged);

  Registrar& registrar_;
  const RcacheConfig cfg_;  // resolved
  const std::string name_;
  UnmapMonitor* const monitor_;
  const bool caching_;
  const uint64_t generation_;
  const int creator_pid_;

  mutable ShortLock mutex_;
  UnmapMonitor::Subscription sub_;
  IntervalMap<Region*> map_;
  std::list<Region> regions_;  // owns every live region, cached or not
  Region* lru_head_ = nullptr;
  Region* lru_tail_ = nullptr;
  RcacheStats stats_;
};

// Every live cache's stats_text(), for torus_info; "" when there is none.
std::string all_rcache_stats_text();

}  // namespace torus::mem
