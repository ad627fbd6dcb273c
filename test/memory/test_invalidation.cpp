// Invalidation by real unmaps: each case registers memory, gives its pages back to the kernel
// the way programs do, gets the same address again (with different pages behind it) and
// proves the cache registered afresh. Named "invalidation: ..." so the unprivileged ctest
// entry can select them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "memory/rcache.h"
#include "recording_registrar.h"

using namespace torus;
using namespace torus::mem;
using namespace torus::mem::test;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;  // ASan's allocator quarantines freed blocks: no address reuse
#else
constexpr bool kAsan = false;
#endif

constexpr uint32_t kRw = 3;

struct Fixture {
  Fixture() {
    REQUIRE_MESSAGE(UnmapMonitor::instance().active(), UnmapMonitor::instance().why_unavailable());
    cache = make_cache(reg);
  }
  // Registers [p, p + len), checks it is cached, and returns its handle (released).
  void* register_once(const void* p, size_t len) {
    auto r = cache->get(p, len, kRw);
    REQUIRE(r.ok());
    auto again = cache->get(p, len, kRw);
    REQUIRE(again.ok());
    CHECK(again->handle() == r->handle());  // cached
    return r->handle();
  }
  // The same address after its pages changed: a new registration, the old one released.
  void expect_fresh(const void* p, size_t len, void* old) {
    auto r = cache->get(p, len, kRw);
    REQUIRE(r.ok());
    CHECK(r->handle() != old);
    CHECK(frees.fresh(reg, r.value()));
    CHECK_FALSE(reg.record(old).live);
  }
  RecordingRegistrar reg;
  FreeLog frees;
  std::unique_ptr<RegCache> cache;
};

void fill(void* p, size_t len, int v) { std::memset(p, v, len); }

void* map_anon(size_t len, void* at = nullptr, int extra = 0) {
  void* p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra, -1, 0);
  REQUIRE(p != MAP_FAILED);
  return p;
}

}  // namespace

TEST_CASE("invalidation: large malloc, free, malloc again at the same address") {
  Fixture f;
  // A fixed mmap threshold: glibc's dynamic one would move the next 4 MiB block to the heap.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  constexpr size_t kLen = 4 << 20;
  char* a = static_cast<char*>(malloc(kLen));
  REQUIRE(a != nullptr);
  fill(a, kLen, 1);
  void* old = f.register_once(a, kLen);
  const uintptr_t addr = reinterpret_cast<uintptr_t>(a);
  f.frees.freed(a, kLen);
  free(a);  // glibc's internal munmap: no interposed symbol sees this one
  char* b = static_cast<char*>(malloc(kLen));
  REQUIRE(b != nullptr);
  fill(b, kLen, 2);  // gcc removes a malloc whose memory is never used
  if (reinterpret_cast<uintptr_t>(b) == addr) {
    f.expect_fresh(b, kLen, old);
  } else {
    CHECK_MESSAGE(kAsan, "glibc did not hand the same address back");
    auto r = f.cache->get(b, kLen, kRw);
    REQUIRE(r.ok());
    CHECK(f.frees.fresh(f.reg, r.value()));
  }
  if (!kAsan) CHECK(f.cache->stats().invalidations >= 1);
  free(b);
}

TEST_CASE("invalidation: munmap, then mmap MAP_FIXED at the same address") {
  Fixture f;
  const size_t len = 64 * page();
  void* p = map_anon(len);
  fill(p, len, 1);
  void* old = f.register_once(p, len);
  f.frees.freed(p, len);
  REQUIRE(munmap(p, len) == 0);
  REQUIRE(map_anon(len, p, MAP_FIXED) == p);
  f.expect_fresh(p, len, old);
  munmap(p, len);
}

TEST_CASE("invalidation: mmap MAP_FIXED over a registered mapping (implicit unmap)") {
  Fixture f;
  const size_t len = 16 * page();
  void* p = map_anon(len);
  fill(p, len, 1);
  void* old = f.register_once(static_cast<char*>(p) + page(), 2 * page());
  f.frees.freed(p, 4 * page());
  REQUIRE(map_anon(4 * page(), p, MAP_FIXED) == p);
  f.expect_fresh(static_cast<char*>(p) + page(), 2 * page(), old);
  munmap(p, len);
}

TEST_CASE("invalidation: madvise DONTNEED, FREE and REMOVE") {
  Fixture f;
  const size_t len = 16 * page();
  for (int advice : {MADV_DONTNEED, MADV_FREE}) {
    void* p = map_anon(len);
    fill(p, len, 1);
    void* old = f.register_once(p, len);
    f.frees.freed(static_cast<char*>(p) + 3 * page(), page());
    REQUIRE(madvise(static_cast<char*>(p) + 3 * page(), page(), advice) == 0);
    f.expect_fresh(p, len, old);
    munmap(p, len);
  }
  // MADV_REMOVE needs shared memory.
  void* s = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  REQUIRE(s != MAP_FAILED);
  fill(s, len, 1);
  void* old = f.register_once(s, len);
  f.frees.freed(s, page());
  REQUIRE(madvise(s, page(), MADV_REMOVE) == 0);
  f.expect_fresh(s, len, old);
  munmap(s, len);
}

TEST_CASE("invalidation: brk shrink, then regrow at the same address") {
  Fixture f;
  // Give glibc's heap room first so its own allocations during the test never move the
  // break: our sbrk calls below must be the only ones.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  void* room = malloc(8 << 20);
  fill(room, 8 << 20, 0);
  free(room);
  const size_t len = 256 * page();
  char* start = static_cast<char*>(sbrk(0));
  const uintptr_t ps = page();
  char* aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(start) + ps - 1) & ~(ps - 1));
  const size_t grow = static_cast<size_t>(aligned - start) + len;
  REQUIRE(sbrk(static_cast<intptr_t>(grow)) == start);
  fill(aligned, len, 1);
  void* old = f.register_once(aligned, len);
  f.frees.freed(aligned, len);
  REQUIRE(sbrk(-static_cast<intptr_t>(len)) != reinterpret_cast<void*>(-1));  // brk shrink
  REQUIRE(sbrk(static_cast<intptr_t>(len)) == aligned);  // the same addresses, new pages
  CHECK(aligned[0] == 0);
  f.expect_fresh(aligned, len, old);
  REQUIRE(sbrk(-static_cast<intptr_t>(grow)) != reinterpret_cast<void*>(-1));
  CHECK(UnmapMonitor::instance().counters().unmap >= 1);
}

TEST_CASE("invalidation: mremap moving and shrinking") {
  Fixture f;
  const size_t len = 32 * page();
  void* p = map_anon(len);
  fill(p, len, 1);
  void* old = f.register_once(p, len);
  // Shrink in place: the tail goes.
  f.frees.freed(static_cast<char*>(p) + len / 2, len / 2);
  REQUIRE(mremap(p, len, len / 2, 0) == p);
  REQUIRE(map_anon(len / 2, static_cast<char*>(p) + len / 2, MAP_FIXED) != MAP_FAILED);
  f.expect_fresh(p, len, old);
  munmap(p, len);

  // Move: the old addresses lose their pages; new ones are mapped there.
  void* q = map_anon(len);
  fill(q, len, 1);
  old = f.register_once(q, len);
  void* guard = map_anon(len);  // some other mapping, so a move is possible anywhere
  f.frees.freed(q, len);
  void* moved = mremap(q, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, guard);
  REQUIRE(moved == guard);
  REQUIRE(map_anon(len, q, MAP_FIXED) == q);
  f.expect_fresh(q, len, old);
  munmap(q, len);
  munmap(moved, len);
  CHECK(UnmapMonitor::instance().counters().remap >= 1);
}

TEST_CASE("invalidation: shared memory (memfd) unmapped, another file mapped there") {
  Fixture f;
  const size_t len = 16 * page();
  const int fd1 = memfd_create("torus-a", 0), fd2 = memfd_create("torus-b", 0);
  REQUIRE(fd1 >= 0);
  REQUIRE(fd2 >= 0);
  REQUIRE(ftruncate(fd1, static_cast<off_t>(len)) == 0);
  REQUIRE(ftruncate(fd2, static_cast<off_t>(len)) == 0);
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd1, 0);
  REQUIRE(p != MAP_FAILED);
  fill(p, len, 1);
  void* old = f.register_once(p, len);
  f.frees.freed(p, len);
  REQUIRE(munmap(p, len) == 0);
  REQUIRE(mmap(p, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd2, 0) == p);
  f.expect_fresh(p, len, old);
  munmap(p, len);
  close(fd1);
  close(fd2);
}

TEST_CASE("invalidation: System V shared memory is registered per use (shmdt is safe)") {
  // userfaultfd refuses SysV segments (their mappings are not plain shmem to it), so the
  // cache cannot learn of a shmdt: it must never keep such a registration.
  Fixture f;
  const size_t len = 16 * page();
  const int id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
  REQUIRE(id >= 0);
  void* p = shmat(id, nullptr, 0);
  REQUIRE(p != reinterpret_cast<void*>(-1));
  fill(p, len, 1);
  void* old = nullptr;
  {
    auto r = f.cache->get(p, len, kRw);
    REQUIRE(r.ok());
    old = r->handle();
  }
  CHECK_FALSE(f.reg.record(old).live);
  CHECK(f.cache->stats().regions == 0);
  f.frees.freed(p, len);
  REQUIRE(shmdt(p) == 0);
  const int id2 = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
  REQUIRE(id2 >= 0);
  REQUIRE(shmat(id2, p, 0) == p);
  auto r = f.cache->get(p, len, kRw);
  REQUIRE(r.ok());
  CHECK(r->handle() != old);
  CHECK(f.frees.fresh(f.reg, r.value()));
  r->reset();
  shmdt(p);
  shmctl(id, IPC_RMID, nullptr);
  shmctl(id2, IPC_RMID, nullptr);
}

TEST_CASE("invalidation: memory the monitor cannot watch is registered per use") {
  Fixture f;
  SUBCASE("file-backed private mapping") {
    const int fd = open("/proc/self/exe", O_RDONLY);
    REQUIRE(fd >= 0);
    void* p = mmap(nullptr, page(), PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    REQUIRE(p != MAP_FAILED);
    void* h1 = nullptr;
    {
      auto r = f.cache->get(p, 100, 1);
      REQUIRE(r.ok());
      h1 = r->handle();
    }
    CHECK_FALSE(f.reg.record(h1).live);  // deregistered at release
    auto r = f.cache->get(p, 100, 1);
    REQUIRE(r.ok());
    CHECK(r->handle() != h1);
    CHECK(f.cache->stats().uncached == 2);
    munmap(p, page());
  }
  SUBCASE("a range with a hole") {
    char* p = static_cast<char*>(map_anon(3 * page()));
    REQUIRE(munmap(p + page(), page()) == 0);
    { auto r = f.cache->get(p, 3 * page(), 1); REQUIRE(r.ok()); }
    CHECK(f.cache->stats().uncached == 1);
    CHECK(f.cache->stats().regions == 0);
    munmap(p, 3 * page());
  }
}

TEST_CASE("invalidation: a region in use is dropped from lookup at once, deregistered at release") {
  Fixture f;
  const size_t len = 8 * page();
  void* p = map_anon(len);
  fill(p, len, 1);
  auto inflight = f.cache->get(p, len, kRw);
  REQUIRE(inflight.ok());
  void* old = inflight->handle();
  f.frees.freed(p, page());
  REQUIRE(madvise(p, page(), MADV_DONTNEED) == 0);
  f.cache->flush_invalidations();
  CHECK(f.cache->stats().regions == 0);
  CHECK(f.cache->stats().pending_deregs == 1);
  CHECK(f.reg.record(old).live);  // the operation in flight still uses it
  {
    auto fresh = f.cache->get(p, len, kRw);
    REQUIRE(fresh.ok());
    CHECK(fresh->handle() != old);
    CHECK(f.frees.fresh(f.reg, fresh.value()));
  }
  inflight->reset();
  CHECK_FALSE(f.reg.record(old).live);
  CHECK(f.cache->stats().pending_deregs == 0);
  munmap(p, len);
}

TEST_CASE("invalidation: threads hitting while another thread gives pages back") {
  // A get racing with an unmap may legitimately return the old registration (the user freed
  // memory while using it), so the workers only exercise the locking; freshness is checked
  // once the unmapping thread is done.
  Fixture f;
  constexpr size_t kSlots = 8;
  const size_t len = 4 * page();
  char* base = static_cast<char*>(map_anon(kSlots * len));
  fill(base, kSlots * len, 1);
  std::atomic<bool> stop{false};
  auto worker = [&](unsigned x) {
    while (!stop.load()) {
      x = x * 1103515245 + 12345;
      auto r = f.cache->get(base + (x >> 8) % kSlots * len, len, kRw);
      CHECK(r.ok());
    }
  };
  std::thread t1(worker, 1), t2(worker, 2);
  for (int i = 0; i < 200; ++i) {
    char* p = base + static_cast<size_t>(i) % kSlots * len;
    { auto r = f.cache->get(p, len, kRw); REQUIRE(r.ok()); }  // cached before it goes
    f.frees.freed(p, page());
    REQUIRE(madvise(p, page(), MADV_DONTNEED) == 0);
  }
  stop = true;
  t1.join();
  t2.join();
  for (size_t i = 0; i < kSlots; ++i) {
    auto r = f.cache->get(base + i * len, len, kRw);
    REQUIRE(r.ok());
    CHECK(f.frees.fresh(f.reg, r.value()));
  }
  CHECK(f.cache->stats().invalidations >= 200);
  munmap(base, kSlots * len);
}

TEST_CASE("invalidation: running unprivileged when asked to") {
  if (std::getenv("TORUS_TEST_EXPECT_UNPRIVILEGED") == nullptr) return;
  CHECK(geteuid() != 0);
  CHECK(UnmapMonitor::instance().active());
}
