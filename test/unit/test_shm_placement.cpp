// Placement: the class of the cores' placement from timed loads of the consumer's line
// (shm_placement.h).
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_placement.h"

using torus::shm::Placement;

namespace {

// `n` loads of `ns` each; returns how many of them changed the class.
int feed(Placement& p, int n, double ns) {
  int flips = 0;
  for (int i = 0; i < n; ++i) flips += p.record_ns(ns) ? 1 : 0;
  return flips;
}

}  // namespace

TEST_CASE("placement: near until a quarter of a window is slow") {
  Placement p;
  CHECK(p.near());
  CHECK(p.bandwidth_Bps() == Placement::kNearBps);
  // Fewer samples than the window decide nothing, however slow.
  CHECK(feed(p, Placement::kWindow - 1, 5000) == 0);
  CHECK(p.near());
  CHECK(feed(p, 1, 150) == 1);
  CHECK_FALSE(p.near());
  CHECK(p.bandwidth_Bps() == Placement::kFarBps);
  CHECK(p.slow_loads() == Placement::kWindow);
  // Back to near only once at most kNearUpTo of the window are slow.
  CHECK(feed(p, Placement::kWindow - Placement::kNearUpTo - 1, 30) == 0);
  CHECK_FALSE(p.near());
  CHECK(feed(p, 1, 30) == 1);
  CHECK(p.near());
  CHECK(p.slow_loads() == Placement::kNearUpTo);
}

TEST_CASE("placement: scattered slow loads stay near; a far mixture goes far and stays") {
  Placement p;
  CHECK(feed(p, 40, 35) == 0);
  // Preempted loads (milliseconds), one in eight, change nothing.
  for (int i = 0; i < 20; ++i) {
    CHECK(feed(p, 1, 1e6) == 0);
    CHECK(feed(p, 7, 35) == 0);
  }
  CHECK(p.near());
  // Far, some loads find the line already on its way: half fast is still far, at once.
  int flips = 0;
  for (int i = 0; i < 20; ++i) flips += feed(p, 1, 20) + feed(p, 1, 155);
  CHECK(flips == 1);
  CHECK_FALSE(p.near());
  CHECK(p.slow_loads() == Placement::kWindow / 2);
  // Loads between the classes' values count as fast: at the boundary, not above it.
  CHECK(feed(p, Placement::kWindow, Placement::kSlowNs) == 1);
  CHECK(p.near());
  CHECK_FALSE(p.record_ns(-1));
}

TEST_CASE("placement: one fragment in kSampleEveryNear is sampled, kSampleEveryFar while far") {
  Placement p;
  int timed = 0;
  for (unsigned i = 0; i < 10 * Placement::kSampleEveryNear; ++i) timed += p.sample_next() ? 1 : 0;
  CHECK(timed == 10);
  CHECK(feed(p, Placement::kWindow, 500) == 1);
  timed = 0;
  for (unsigned i = 0; i < 10 * Placement::kSampleEveryFar; ++i) timed += p.sample_next() ? 1 : 0;
  CHECK(timed == 10);
}

TEST_CASE("placement: clock ticks count once the clock's rate is known") {
  Placement p;
  const auto start = std::chrono::steady_clock::now();
  // Until calibrated, ticks are not evidence; afterwards ten 1-tick loads make a window.
  int recorded = 0;
  while (p.ns_per_tick() == 0 && std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
    p.record_ticks(1);
  REQUIRE(p.ns_per_tick() > 0);
  // Any clock these machines have ticks between 10 MHz and 100 GHz.
  CHECK(p.ns_per_tick() > 0.01);
  CHECK(p.ns_per_tick() < 100);
  for (unsigned i = 0; i < Placement::kWindow; ++i) recorded += p.record_ticks(1) ? 1 : 0;
  CHECK(recorded == 0);  // fast: still near
  CHECK(p.slow_loads() == 0);
  // A tick count worth far more than kSlowNs counts as slow.
  const auto slow_ticks = static_cast<uint64_t>(10 * Placement::kSlowNs / p.ns_per_tick()) + 1;
  for (unsigned i = 0; i < Placement::kFarFrom; ++i) recorded += p.record_ticks(slow_ticks) ? 1 : 0;
  CHECK(recorded == 1);
  CHECK_FALSE(p.near());
  const uint64_t t0 = torus::shm::line_clock_begin();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const uint64_t t1 = torus::shm::line_clock_end();
  REQUIRE(t1 > t0);
  const double ns = static_cast<double>(t1 - t0) * p.ns_per_tick();
  CHECK(ns > 1.5e6);
  CHECK(ns < 1e9);
}

TEST_CASE("placement: a writer times the consumer's line only when the consumer moved it") {
  torus::shm::SegmentHeader header{};
  alignas(64) torus::shm::Cell cells[4]{};
  alignas(64) std::byte segs[4 * 64]{};
  const torus::shm::RingView ring = torus::shm::shared_ring(&header, cells, segs, 4, 64);
  torus::shm::fifo_init(ring);
  torus::shm::FifoWriter w(ring, 1);
  torus::shm::FifoReader r(ring);
  // Nothing consumed since the writer began: its view is current, the load is no evidence.
  CHECK(w.time_released_line() == 0);
  torus::shm::FifoWriter::Slot slot;
  REQUIRE(w.claim(slot));
  w.publish(slot, 1, 0, 0);
  REQUIRE(r.peek() != nullptr);
  r.release();
  r.publish_released();
  // The consumer wrote the line since: timed (at least one tick), then current again.
  CHECK(w.time_released_line() > 0);
  CHECK(w.time_released_line() == 0);
}
