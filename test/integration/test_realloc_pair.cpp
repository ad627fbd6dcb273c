// Buffers freed and reallocated at the same address between messages, on both sides: a large
// malloc, free, malloc again (glibc maps and unmaps such blocks), and munmap followed by mmap
// at the same address. Data is checked byte for byte. Where the transport caches
// registrations (ofi), the receiver's cache must also have seen the unmaps: with a provider
// that pins pages (EFA, verbs) a stale registration would move the old pages, so a cache that
// never invalidated fails here even on the software providers, whose data would still match.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "memory/rcache.h"
#include "test/integration/pair.h"

using namespace torus;
using namespace torus::test;

namespace {

constexpr size_t kSize = (size_t{8} << 20) + 123;  // above glibc's mmap threshold: rendezvous
constexpr int kRounds = 6;
constexpr Tag kTag = 0x7e11;

void* page_of(const void* p) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095});
}

// A buffer of kSize bytes: malloc'd in even rounds, mmap'd in odd ones, at `want` (the page
// where the previous round's buffer started) when that address is free again.
struct Buffer {
  std::byte* p = nullptr;
  bool mapped = false;

  bool get(int round, void* want) {
    mapped = round % 2 == 1;
    if (!mapped) {
      p = static_cast<std::byte*>(std::malloc(kSize));
      return p != nullptr;
    }
    void* m = mmap(want, kSize, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    if (m == MAP_FAILED) m = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p = m == MAP_FAILED ? nullptr : static_cast<std::byte*>(m);
    return p != nullptr;
  }
  void put() {
    if (mapped) munmap(p, kSize);
    else std::free(p);
  }
};

// Sum of "invalidations N" over this process's registration caches; -1 when none caches.
long cache_invalidations() {
  const std::string text = mem::all_rcache_stats_text();
  if (text.empty() || text.find(": caching") == std::string::npos) return -1;
  long total = 0;
  for (size_t at = text.find("invalidations "); at != std::string::npos;
       at = text.find("invalidations ", at + 1))
    total += std::strtol(text.c_str() + at + 14, nullptr, 10);
  return total;
}

int sender(Peer& p) {
  void* last = nullptr;
  std::vector<void*> seen;
  int same = 0;
  for (int r = 0; r < kRounds; ++r) {
    Buffer b;
    if (!b.get(r, last)) return 10;
    // Reused: an earlier round's buffer started on this page (glibc hands a freed mmap'd
    // block's address back, or the heap regrows over a trimmed top; mmap takes the hole).
    same += std::find(seen.begin(), seen.end(), page_of(b.p)) != seen.end();
    last = page_of(b.p);
    seen.push_back(last);
    fill_pattern(b.p, kSize, 1000 + static_cast<uint64_t>(r));
    p.barrier();  // the receiver posted
    Request* req = nullptr;
    const Status s = p.ep->tag_send(b.p, kSize, kTag + static_cast<Tag>(r), &req);
    if (s == Status::InProgress) {
      if (p.wait(req) != Status::Ok) return 11;
      req->release();
    } else if (s != Status::Ok) {
      return 12;
    }
    p.barrier();  // the receiver checked
    b.put();
  }
  std::fprintf(stderr, "sender: %d of %d buffers reused an earlier address\n", same,
               kRounds - 1);
  p.drain();
  return 0;
}

int receiver(Peer& p) {
  void* last = nullptr;
  std::vector<void*> seen;
  int same = 0;
  for (int r = 0; r < kRounds; ++r) {
    Buffer b;
    if (!b.get(r, last)) return 20;
    // Reused: an earlier round's buffer started on this page (glibc hands a freed mmap'd
    // block's address back, or the heap regrows over a trimmed top; mmap takes the hole).
    same += std::find(seen.begin(), seen.end(), page_of(b.p)) != seen.end();
    last = page_of(b.p);
    seen.push_back(last);
    std::memset(b.p, 0xee, kSize);
    Request* req = nullptr;
    if (p.worker->tag_recv(b.p, kSize, kTag + static_cast<Tag>(r), kTagMaskFull, &req) !=
        Status::InProgress)
      return 21;
    p.barrier();
    const Status s = p.wait(req);
    req->release();
    if (s != Status::Ok) return 22;
    if (const size_t bad = check_pattern(b.p, kSize, 1000 + static_cast<uint64_t>(r));
        bad != SIZE_MAX) {
      std::fprintf(stderr, "round %d: data mismatch at offset %zu\n", r, bad);
      return 23;
    }
    p.barrier();
    b.put();
  }
  const long inv = cache_invalidations();
  std::fprintf(stderr, "receiver: %d of %d buffers reused an earlier address; cache "
               "invalidations %ld (-1: no caching transport)\n", same, kRounds - 1, inv);
  // Every reused address was unmapped after a registration covering it: the cache must have
  // dropped those regions (it did not if nothing was reused, e.g. under ASan's allocator).
  if (inv == 0 && same > 0) return 24;
  p.drain();
  return 0;
}

}  // namespace

TEST_CASE("buffers freed and reallocated at the same address between large messages") {
  const std::string r = run_pair(sender, receiver);
  CHECK(r.empty());
  if (!r.empty()) MESSAGE(r);
}
