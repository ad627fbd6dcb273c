// RegCache: lookup, miss (watch, merge, register), release with LRU limits, invalidation.
#include "memory/rcache.h"

#include <unistd.h>

#include <algorithm>

#include "core/base/log.h"

namespace torus::mem {
namespace {

uintptr_t page_size() noexcept {
  static const uintptr_t size = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// Live caches, for all_rcache_stats_text(): an explicit registry, not static-init magic.
// Never destroyed: a cache owned by another static (libmpi's runtime, torn down at exit()
// by a program that never called MPI_Finalize) unregisters itself after this file's
// statics would have been destroyed.
std::mutex g_caches_mutex;  // trivially destructible
std::vector<RegCache*>& live_caches() {
  static auto* caches = new std::vector<RegCache*>;
  return *caches;
}

std::string u64(uint64_t v) { return std::to_string(v); }

}  // namespace

RegRef& RegRef::operator=(RegRef&& o) noexcept {
  if (this != &o) {
    reset();
    cache_ = o.cache_;
    region_ = o.region_;
    o.region_ = nullptr;
  }
  return *this;
}

void RegRef::reset() noexcept {
  if (region_ != nullptr) cache_->release(region_);
  region_ = nullptr;
}

Result<std::unique_ptr<RegCache>> RegCache::create(Registrar& registrar, const RcacheConfig& cfg,
                                                   std::string name, UnmapMonitor* monitor) {
  install_fork_handler();
  if (monitor == nullptr) monitor = &UnmapMonitor::instance();
  bool caching = cfg.mode != RcacheMode::Off;
  if (caching && !monitor->active()) {
    if (cfg.mode == RcacheMode::On)
      return make_error(Status::Unsupported,
                        "TORUS_RCACHE=y but no unmap monitor works in this process (" +
                            monitor->why_unavailable() +
                            "); a cache without one could hand out registrations of freed "
                            "memory. Set TORUS_RCACHE=auto or n to register per operation");
    caching = false;  // the monitor already logged why, once
  }
  std::unique_ptr<RegCache> c(
      new RegCache(registrar, cfg.resolved(), std::move(name), monitor, caching));
  std::lock_guard<std::mutex> lock(g_caches_mutex);
  live_caches().push_back(c.get());
  return c;
}

RegCache::RegCache(Registrar& registrar, const RcacheConfig& cfg, std::string name,
                   UnmapMonitor* monitor, bool caching)
    : registrar_(registrar),
      cfg_(cfg),
      name_(std::move(name)),
      monitor_(monitor),
      caching_(caching),
      generation_(fork_generation()),
      creator_pid_(static_cast<int>(getpid())),
      mutex_(!cfg.serialised_by_caller),
      sub_(monitor->subscribe()) {}

RegCache::~RegCache() {
  if (forked()) {
    // The parent's registrations are the parent's: never deregistered here. If a parent
    // thread held a lock at fork() the structures may be half-updated, so they are left
    // alone (leaked) rather than walked.
    if (g_caches_mutex.try_lock()) {
      std::erase(live_caches(), this);
      g_caches_mutex.unlock();
    }
    if (!mutex_.try_lock()) {
      (void)new std::list<Region>(std::move(regions_));
      (void)new IntervalMap<Region*>(std::move(map_));
      return;
    }
    mutex_.unlock();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(g_caches_mutex);
    std::erase(live_caches(), this);
  }
  if (cfg_.print_stats) {
    const std::string text = stats_text();
    log_write(LogLevel::Info, __FILE__, __LINE__, "%s", text.c_str());
  }
  std::lock_guard<ShortLock> lock(mutex_);
  size_t in_use = 0;
  for (Region& r : regions_) {
    in_use += r.refs > 0;
    registrar_.dereg(r.handle);
  }
  if (in_use > 0)
    TORUS_ERROR("registration cache %s destroyed while %zu registrations are still in use; "
                "their RegRefs must be released first",
                name_.c_str(), in_use);
}

Error RegCache::forked_error() const {
  return make_error(Status::Unsupported,
                    "registration cache " + name_ + " belongs to process " +
                        std::to_string(creator_pid_) + "; this is a fork()ed child (pid " +
                        std::to_string(getpid()) +
                        "), where its registrations are not valid: create a new context in "
                        "the child");
}

Result<RegRef> RegCache::get(const void* addr, size_t len, uint32_t access) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  if (len == 0 || a + len < a)
    return make_error(Status::InvalidParam, "registration of an empty or wrapping range");
  if (forked()) return forked_error();
  const uintptr_t e = a + len;

  std::lock_guard<ShortLock> lock(mutex_);
  if (caching_) {
    if (monitor_->pending(sub_)) drain_locked();
    auto it = map_.find_covering(a, e);
    if (it != map_.end()) {
      Region* r = it->second.value;
      if ((r->access & access) == access) {
        ++stats_.hits;
        if (r->refs++ == 0) {
          lru_unlink(r);
          --stats_.unused_regions;
          stats_.unused_bytes -= r->end - r->start;
        }
        return RegRef(this, r);
      }
    }
  }

  ++stats_.misses;
  const uintptr_t ps = page_size();
  uintptr_t start = a & ~(ps - 1);
  uintptr_t end = (e + ps - 1) & ~(ps - 1);
  uint32_t acc = access;
  // Watch before registering: an unmap after the watch is reported, and one before it
  // cannot affect pages that are registered afterwards.
  bool cache_it = caching_;
  if (cache_it) {
    std::string why;
    if (monitor_->watch(reinterpret_cast<void*>(start), end - start, &why) != Status::Ok) {
      cache_it = false;
      TORUS_DEBUG("rcache %s: [%#lx, %#lx) registered uncached: %s", name_.c_str(),
                  static_cast<unsigned long>(start), static_cast<unsigned long>(end),
                  why.c_str());
    }
  }
  // Overlapping cached regions fold into one covering region, so a lookup finds at most one
  // candidate; the old ones leave the map and go when their users release them.
  std::vector<Region*> merged;
  if (cache_it) {
    map_.for_each_overlapping(start, end, [&](IntervalMap<Region*>::iterator it) {
      Region* r = it->second.value;
      start = std::min(start, r->start);
      end = std::max(end, r->end);
      acc |= r->access;
      merged.push_back(r);
    });
  }
  Result<void*> handle = register_locked(start, end, acc, merged);
  if (!handle) {
    ++stats_.failures;
    return handle.error();
  }
  drop_merged_locked(merged);
  regions_.emplace_front();
  Region* r = &regions_.front();
  r->self = regions_.begin();
  r->start = start;
  r->end = end;
  r->access = acc;
  r->handle = handle.value();
  r->refs = 1;
  if (cache_it) {
    map_.insert(start, end, r);
    r->in_map = true;
    ++stats_.regions;
    stats_.bytes += end - start;
  } else {
    ++stats_.uncached;
  }
  return RegRef(this, r);
}

Result<void*> RegCache::register_locked(uintptr_t start, uintptr_t end, uint32_t access,
                                        std::vector<Region*>& merged) {
  Result<void*> h = registrar_.reg(reinterpret_cast<void*>(start), end - start, access);
  if (h || lru_tail_ == nullptr ||
      (h.status() != Status::NoMemory && h.status() != Status::NoResource))
    return h;
  // Out of registration resources (memlock, NIC tables): unused regions are the room. The
  // regions being merged go first, so eviction cannot free one still listed in `merged`.
  drop_merged_locked(merged);
  while (lru_tail_ != nullptr) evict_locked(lru_tail_);
  return registrar_.reg(reinterpret_cast<void*>(start), end - start, access);
}

void RegCache::drop_merged_locked(std::vector<Region*>& merged) {
  for (Region* r : merged) {
    ++stats_.merges;
    drop_locked(r);
  }
  merged.clear();
}

void RegCache::release(Region* r) noexcept {
  if (forked()) return;  // the parent's registration: not ours to deregister
  std::lock_guard<ShortLock> lock(mutex_);
  if (caching_ && monitor_->pending(sub_)) drain_locked();
  TORUS_ASSERT(r->refs > 0);
  if (--r->refs > 0) return;
  if (!r->in_map) {
    if (r->dropped) --stats_.pending_deregs;
    destroy_locked(r);
    return;
  }
  lru_push_front(r);
  ++stats_.unused_regions;
  stats_.unused_bytes += r->end - r->start;
  enforce_limits_locked();
}

void RegCache::flush_invalidations() {
  if (forked()) return;
  std::lock_guard<ShortLock> lock(mutex_);
  if (caching_) drain_locked();
}

void RegCache::drain_locked() {
  monitor_->drain(sub_, [this](Range r) { invalidate_locked(r); });
  // The monitor failing for good means later unmaps go unreported: stop trusting the map.
  if (!monitor_->active()) invalidate_locked(kEverything);
}

void RegCache::invalidate_locked(Range range) {
  map_.for_each_overlapping(range.start, range.end, [&](IntervalMap<Region*>::iterator it) {
    ++stats_.invalidations;
    drop_locked(it->second.value);
  });
}

void RegCache::drop_locked(Region* r) {
  if (r->in_map) {
    map_.erase(map_.find(r->start));
    r->in_map = false;
    --stats_.regions;
    stats_.bytes -= r->end - r->start;
  }
  if (r->refs == 0) {
    lru_unlink(r);
    --stats_.unused_regions;
    stats_.unused_bytes -= r->end - r->start;
    destroy_locked(r);
  } else {
    r->dropped = true;
    ++stats_.pending_deregs;
  }
}

void RegCache::evict_locked(Region* r) {
  ++stats_.evictions;
  drop_locked(r);
}

void RegCache::enforce_limits_locked() {
  while (lru_tail_ != nullptr && (stats_.unused_regions > cfg_.max_unused_regions ||
                                  stats_.unused_bytes > cfg_.max_unused_bytes))
    evict_locked(lru_tail_);
}

void RegCache::destroy_locked(Region* r) noexcept {
  registrar_.dereg(r->handle);
  regions_.erase(r->self);
}

void RegCache::lru_unlink(Region* r) noexcept {
  (r->lru_prev ? r->lru_prev->lru_next : lru_head_) = r->lru_next;
  (r->lru_next ? r->lru_next->lru_prev : lru_tail_) = r->lru_prev;
  r->lru_prev = r->lru_next = nullptr;
}

void RegCache::lru_push_front(Region* r) noexcept {
  r->lru_prev = nullptr;
  r->lru_next = lru_head_;
  (lru_head_ ? lru_head_->lru_prev : lru_tail_) = r;
  lru_head_ = r;
}

RcacheStats RegCache::stats() const {
  std::lock_guard<ShortLock> lock(mutex_);
  return stats_;
}

std::string RegCache::stats_text() const {
  const RcacheStats s = stats();
  const auto limit = [](uint64_t v) { return v == RcacheConfig::kUnlimited ? "inf" : u64(v); };
  std::string t = "rcache " + name_ + ": " +
                  (caching_ ? std::string("caching (monitor: ") + monitor_->name() + ")"
                            : "not caching (" +
                                  (cfg_.mode == RcacheMode::Off
                                       ? std::string("TORUS_RCACHE=n")
                                       : "no unmap monitor: " + monitor_->why_unavailable()) +
                                  ")");
  t += "\n  hits " + u64(s.hits) + ", misses " + u64(s.misses) + ", merges " + u64(s.merges) +
       ", evictions " + u64(s.evictions) + ", invalidations " + u64(s.invalidations) +
       ", uncached " + u64(s.uncached) + ", failures " + u64(s.failures);
  t += "\n  cached " + u64(s.regions) + " regions / " + u64(s.bytes) + " bytes; unused " +
       u64(s.unused_regions) + " / " + u64(s.unused_bytes) + " (limits " +
       limit(cfg_.max_unused_regions) + " regions, " + limit(cfg_.max_unused_bytes) +
       " bytes); awaiting release " + u64(s.pending_deregs);
  return t;
}

std::string all_rcache_stats_text() {
  std::lock_guard<std::mutex> lock(g_caches_mutex);
  std::string out;
  for (const RegCache* c : live_caches()) {
    if (!out.empty()) out += '\n';
    out += c->stats_text();
  }
  return out;
}

}  // namespace torus::mem
