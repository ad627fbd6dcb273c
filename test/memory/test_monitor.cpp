// The unmap monitor's event log: subscription cursors, report(), overflow, and the ordering
// guarantee (an unmap that returned is visible to the next drain).
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vector>

#include "memory/unmap_monitor.h"

using namespace torus;
using namespace torus::mem;

TEST_CASE("monitor: the process-wide monitor is userfaultfd here") {
  UnmapMonitor& m = UnmapMonitor::instance();
  REQUIRE_MESSAGE(m.active(), m.why_unavailable());
  CHECK(std::string(m.name()) == "userfaultfd");
  CHECK(&m == &UnmapMonitor::instance());
  CHECK(m.status_text().find("unmap monitor: userfaultfd") != std::string::npos);
}

TEST_CASE("monitor: an unmap is visible to the very next drain") {
  UnmapMonitor& m = UnmapMonitor::instance();
  const size_t ps = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto sub = m.subscribe();
  for (int i = 0; i < 50; ++i) {
    char* p = static_cast<char*>(
        mmap(nullptr, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(p != MAP_FAILED);
    REQUIRE(m.watch(p, 4 * ps) == Status::Ok);
    REQUIRE(munmap(p, 4 * ps) == 0);
    // No waiting: munmap returning means the event was read, and drain waits for its append.
    CHECK(m.pending(sub));
    bool seen = false;
    m.drain(sub, [&](Range r) {
      seen |= r.start <= reinterpret_cast<uintptr_t>(p) &&
              reinterpret_cast<uintptr_t>(p) + 4 * ps <= r.end;
    });
    CHECK(seen);
  }
}

TEST_CASE("monitor: report(), independent cursors and overflow") {
  UnmapMonitor& m = UnmapMonitor::instance();
  auto a = m.subscribe();
  m.report({0x1000, 0x2000});
  auto b = m.subscribe();  // starts after the first report
  m.report({0x3000, 0x4000});
  std::vector<uintptr_t> got_a, got_b;
  m.drain(a, [&](Range r) { got_a.push_back(r.start); });
  m.drain(b, [&](Range r) { got_b.push_back(r.start); });
  CHECK(got_a == std::vector<uintptr_t>{0x1000, 0x3000});
  CHECK(got_b == std::vector<uintptr_t>{0x3000});
  CHECK_FALSE(m.pending(a));

  for (size_t i = 0; i < UnmapMonitor::kLogSize + 10; ++i) m.report({0x5000, 0x6000});
  std::vector<Range> got;
  m.drain(a, [&](Range r) { got.push_back(r); });
  REQUIRE(!got.empty());
  CHECK(got.front().start == kEverything.start);  // too far behind: everything is stale
  CHECK(got.front().end == kEverything.end);
  CHECK(got.size() <= UnmapMonitor::kLogSize + 1);
}

TEST_CASE("monitor: watch refuses what it cannot watch, with the reason") {
  UnmapMonitor& m = UnmapMonitor::instance();
  const size_t ps = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char* p = static_cast<char*>(
      mmap(nullptr, 3 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(p != MAP_FAILED);
  REQUIRE(munmap(p + ps, ps) == 0);
  std::string why;
  CHECK(m.watch(p, 3 * ps, &why) == Status::Unsupported);
  CHECK(why.find("not fully mapped") != std::string::npos);
  munmap(p, 3 * ps);
  auto dead = UnmapMonitor::make_unavailable("disabled for the test");
  CHECK_FALSE(dead->active());
  CHECK(dead->watch(&why, 1, &why) == Status::Unsupported);
  CHECK(dead->status_text().find("disabled for the test") != std::string::npos);
}
