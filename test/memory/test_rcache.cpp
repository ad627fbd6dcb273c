// Registration cache: hits, merging, access upgrades, LRU limits, statistics, registration
// failures, the no-monitor fallback, and a randomized run with real invalidations.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "core/base/config.h"
#include "memory/rcache.h"
#include "recording_registrar.h"

using namespace torus;
using namespace torus::mem;
using namespace torus::mem::test;

namespace {

// Anonymous memory the monitor can watch; unmapped at the end.
struct Arena {
  explicit Arena(size_t pages) : len(pages * page()) {
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    base = static_cast<char*>(p);
  }
  ~Arena() { munmap(base, len); }
  char* at(size_t page_index, size_t offset = 0) const { return base + page_index * page() + offset; }
  char* base;
  size_t len;
};

constexpr uint32_t kRead = 1, kWrite = 2;

}  // namespace

TEST_CASE("rcache: a second get of the same or a covered range is a hit") {
  REQUIRE(UnmapMonitor::instance().active());
  Arena arena(16);
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  {
    auto a = cache->get(arena.at(0, 100), 1000, kRead);
    REQUIRE(a.ok());
    CHECK(a->start() == reinterpret_cast<uintptr_t>(arena.at(0)));  // page aligned
    CHECK(a->end() == reinterpret_cast<uintptr_t>(arena.at(1)));
    auto b = cache->get(arena.at(0, 200), 10, kRead);
    REQUIRE(b.ok());
    CHECK(b->handle() == a->handle());
  }
  auto c = cache->get(arena.at(0), page(), kRead);
  REQUIRE(c.ok());
  const RcacheStats s = cache->stats();
  CHECK(s.hits == 2);
  CHECK(s.misses == 1);
  CHECK(reg.regs() == 1);
  CHECK(s.regions == 1);
  CHECK(s.bytes == page());
  CHECK(s.unused_regions == 0);  // c holds it
}

TEST_CASE("rcache: overlapping requests merge into one covering region") {
  Arena arena(16);
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  void* first = nullptr;
  {
    auto a = cache->get(arena.at(0), 2 * page(), kRead);
    REQUIRE(a.ok());
    first = a->handle();
    auto b = cache->get(arena.at(1), 3 * page(), kRead);  // pages 1..3 overlap page 1
    REQUIRE(b.ok());
    CHECK(b->start() == reinterpret_cast<uintptr_t>(arena.at(0)));
    CHECK(b->end() == reinterpret_cast<uintptr_t>(arena.at(4)));
    // `a` still uses the old registration: it stays registered until released.
    CHECK(reg.record(first).live);
    CHECK(cache->stats().pending_deregs == 1);
  }
  CHECK_FALSE(reg.record(first).live);
  CHECK(cache->stats().pending_deregs == 0);
  auto c = cache->get(arena.at(0), 4 * page(), kRead);
  REQUIRE(c.ok());
  CHECK(cache->stats().hits == 1);
  CHECK(cache->stats().merges == 1);
  CHECK(cache->stats().regions == 1);
}

TEST_CASE("rcache: a request for more access registers again with the union") {
  Arena arena(4);
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  auto r = cache->get(arena.at(0), 100, kRead);
  REQUIRE(r.ok());
  auto w = cache->get(arena.at(0), 100, kWrite);
  REQUIRE(w.ok());
  CHECK(w->handle() != r->handle());
  CHECK(w->access() == (kRead | kWrite));
  auto rw = cache->get(arena.at(0), 50, kRead | kWrite);
  REQUIRE(rw.ok());
  CHECK(rw->handle() == w->handle());
}

TEST_CASE("rcache: LRU eviction of unused regions by count and by bytes") {
  Arena arena(32);
  RecordingRegistrar reg;
  SUBCASE("max regions") {
    auto cache = make_cache(reg, test_config(/*max_regions=*/3));
    std::vector<void*> handles;
    for (int i = 0; i < 5; ++i) {
      auto r = cache->get(arena.at(2 * i), 100, kRead);  // separate pages, released at once
      REQUIRE(r.ok());
      handles.push_back(r->handle());
    }
    CHECK(cache->stats().evictions == 2);
    CHECK(cache->stats().unused_regions == 3);
    CHECK_FALSE(reg.record(handles[0]).live);  // least recently released go first
    CHECK_FALSE(reg.record(handles[1]).live);
    CHECK(reg.record(handles[2]).live);
    // Touching region 2 makes it most recent: the next eviction takes region 3.
    { auto r = cache->get(arena.at(4), 10, kRead); CHECK(r->handle() == handles[2]); }
    { auto r = cache->get(arena.at(20), 10, kRead); REQUIRE(r.ok()); }
    CHECK_FALSE(reg.record(handles[3]).live);
    CHECK(reg.record(handles[2]).live);
    CHECK(reg.record(handles[4]).live);
  }
  SUBCASE("max bytes, and in-use regions are never evicted") {
    auto cache = make_cache(reg, test_config(1000, /*max_bytes=*/2 * page()));
    auto big = cache->get(arena.at(0), 4 * page(), kRead);  // in use: not counted
    REQUIRE(big.ok());
    for (int i = 0; i < 3; ++i) {
      auto r = cache->get(arena.at(8 + 2 * i), page(), kRead);
      REQUIRE(r.ok());
    }
    CHECK(cache->stats().unused_bytes == 2 * page());
    CHECK(cache->stats().evictions == 1);
    CHECK(reg.record(big->handle()).live);
    big->reset();
    CHECK(cache->stats().unused_bytes <= 2 * page());
    CHECK(cache->stats().evictions >= 2);
  }
}

TEST_CASE("rcache: statistics and their text") {
  Arena arena(4);
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  { auto r = cache->get(arena.at(0), 10, kRead); REQUIRE(r.ok()); }
  { auto r = cache->get(arena.at(0), 10, kRead); REQUIRE(r.ok()); }
  reg.fail_next(Status::AccessDenied);
  auto bad = cache->get(arena.at(2), 10, kRead);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status() == Status::AccessDenied);
  const RcacheStats s = cache->stats();
  CHECK(s.hits == 1);
  CHECK(s.misses == 2);
  CHECK(s.failures == 1);
  CHECK(s.unused_regions == 1);
  const std::string text = cache->stats_text();
  CHECK(text.find("rcache test: caching (monitor: userfaultfd)") != std::string::npos);
  CHECK(text.find("hits 1, misses 2") != std::string::npos);
  CHECK(all_rcache_stats_text().find("rcache test:") != std::string::npos);
  auto empty = cache->get(arena.at(0), 0, kRead);
  CHECK(empty.status() == Status::InvalidParam);
}

TEST_CASE("rcache: out of registration resources releases unused regions and retries") {
  Arena arena(8);
  RecordingRegistrar reg;
  reg.set_capacity(2);
  auto cache = make_cache(reg);
  { auto r = cache->get(arena.at(0), 10, kRead); REQUIRE(r.ok()); }
  { auto r = cache->get(arena.at(2), 10, kRead); REQUIRE(r.ok()); }
  auto r = cache->get(arena.at(4), 10, kRead);  // full: the two unused ones make room
  REQUIRE(r.ok());
  CHECK(cache->stats().evictions == 2);
  CHECK(reg.live() == 1);
}

TEST_CASE("rcache: without a working monitor it never caches; TORUS_RCACHE=y refuses") {
  auto dead = UnmapMonitor::make_unavailable("test: monitor disabled");
  Arena arena(4);
  RecordingRegistrar reg;
  RcacheConfig cfg = test_config();
  cfg.mode = RcacheMode::On;
  auto refused = RegCache::create(reg, cfg, "y", dead.get());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status() == Status::Unsupported);
  CHECK(refused.error().message.find("TORUS_RCACHE=y") != std::string::npos);
  CHECK(refused.error().message.find("test: monitor disabled") != std::string::npos);

  for (RcacheMode mode : {RcacheMode::Auto, RcacheMode::Off}) {
    cfg.mode = mode;
    auto cache = make_cache(reg, cfg, mode == RcacheMode::Auto ? dead.get() : nullptr);
    CHECK_FALSE(cache->caching());
    const size_t before = reg.deregs();
    {
      auto a = cache->get(arena.at(0), 10, kRead);
      REQUIRE(a.ok());
      auto b = cache->get(arena.at(0), 10, kRead);
      REQUIRE(b.ok());
      CHECK(a->handle() != b->handle());  // registered per operation
    }
    CHECK(reg.deregs() == before + 2);  // and released after use
    CHECK(cache->stats().uncached == 2);
    CHECK(cache->stats_text().find("not caching") != std::string::npos);
  }
}

TEST_CASE("rcache: configuration from TORUS_RCACHE* and machine-sized auto limits") {
  const char* env[] = {"TORUS_RCACHE=n", "TORUS_RCACHE_MAX_SIZE=64m",
                       "TORUS_RCACHE_MAX_REGIONS=auto", "TORUS_RCACHE_STATS=y", nullptr};
  auto cfg = config::Config::load(env);
  REQUIRE(cfg.ok());
  const RcacheConfig c = RcacheConfig::from(cfg.value());
  CHECK(c.mode == RcacheMode::Off);
  CHECK(c.max_unused_bytes == 64ull << 20);
  CHECK(c.max_unused_regions == RcacheConfig::kAuto);
  CHECK(c.print_stats);
  const RcacheConfig r = c.resolved();
  CHECK(r.max_unused_regions >= 64);
  CHECK(r.max_unused_regions <= 16384);
  CHECK(auto_max_unused_bytes() > 0);
  CHECK(auto_max_unused_bytes() < RcacheConfig::kAuto);
}

TEST_CASE("rcache: randomized gets, releases and real invalidations never return stale pages") {
  constexpr size_t kPages = 64;
  Arena arena(kPages);
  RecordingRegistrar reg;
  FreeLog frees;
  RcacheConfig cfg = test_config(/*max_regions=*/8);
  // The lock-free variant an Iface owns must behave the same when used from one thread.
  SUBCASE("thread-safe cache") {}
  SUBCASE("caller-serialised cache") { cfg.serialised_by_caller = true; }
  auto cache = make_cache(reg, cfg);
  std::mt19937_64 rng(777);
  std::vector<RegRef> held;
  for (int op = 0; op < 3000; ++op) {
    const unsigned kind = rng() % 10;
    if (kind < 6) {
      const size_t off = rng() % (kPages * page() - 1);
      const size_t len = 1 + rng() % std::min<size_t>(4 * page(), kPages * page() - off);
      auto r = cache->get(arena.base + off, len, 1u << (rng() % 2));
      REQUIRE(r.ok());
      CHECK(r->start() <= reinterpret_cast<uintptr_t>(arena.base + off));
      CHECK(r->end() >= reinterpret_cast<uintptr_t>(arena.base + off + len));
      CHECK(frees.fresh(reg, r.value()));
      if (rng() % 2) held.push_back(std::move(r.value()));
    } else if (kind < 9) {
      if (!held.empty()) held.erase(held.begin() + static_cast<long>(rng() % held.size()));
    } else {
      // Give pages back to the kernel: the monitor reports it, the cache must forget them.
      const size_t first = rng() % kPages;
      const size_t n = 1 + rng() % std::min<size_t>(4, kPages - first);
      frees.freed(arena.at(first), n * page());
      REQUIRE(madvise(arena.at(first), n * page(), MADV_DONTNEED) == 0);
    }
  }
  held.clear();
  const RcacheStats s = cache->stats();
  CHECK(s.invalidations > 0);
  CHECK(s.hits > 0);
  CHECK(s.pending_deregs == 0);
  CHECK(reg.live() == s.regions);  // every registration is either cached or gone
  CHECK(s.unused_regions <= 8);
}

TEST_CASE("rcache: threads sharing one cache, with invalidations, lose no reference") {
  REQUIRE(UnmapMonitor::instance().active());
  constexpr size_t kPages = 32;
  Arena arena(kPages);
  RecordingRegistrar reg;
  auto cache = make_cache(reg);
  constexpr int kThreads = 4, kOps = 20000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::minstd_rand rng(static_cast<unsigned>(t + 1));
      std::vector<RegRef> held;
      for (int op = 0; op < kOps; ++op) {
        const size_t page_index = rng() % kPages;
        if (t == 0 && op % 500 == 499) {
          // Pages given back while the others look them up: the cache must drop them.
          if (madvise(arena.at(page_index), page(), MADV_DONTNEED) != 0) ++failures;
          continue;
        }
        auto r = cache->get(arena.at(page_index, 8), 64, kRead);
        if (!r.ok() || r->start() > reinterpret_cast<uintptr_t>(arena.at(page_index)) ||
            r->end() < reinterpret_cast<uintptr_t>(arena.at(page_index, 72)))
          ++failures;
        else if (rng() % 4 == 0)
          held.push_back(std::move(r.value()));
        if (held.size() > 8) held.erase(held.begin());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  CHECK(failures.load() == 0);
  cache->flush_invalidations();
  const RcacheStats s = cache->stats();
  CHECK(s.hits + s.misses == uint64_t(kThreads) * kOps - kOps / 500);
  CHECK(s.invalidations > 0);
  CHECK(s.pending_deregs == 0);
  CHECK(s.unused_regions == s.regions);  // every reference came back
  CHECK(reg.live() == s.regions);
}
