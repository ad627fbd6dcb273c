// The shm cost model's measured numbers (shm_rates.h): a CMA read's fixed cost and eager's
// copy-out rate.
#include <doctest/doctest.h>

#include <vector>

#include "test/unit/test_shm_helpers.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_rates.h"

using torus::shm::CopyOutRate;

namespace {

// `n` copies of 8000 bytes at `gbps`; returns how many of them moved the estimate.
int feed(CopyOutRate& r, unsigned n, double gbps) {
  int moves = 0;
  for (unsigned i = 0; i < n; ++i) moves += r.record(8000, 8000 / gbps) ? 1 : 0;
  return moves;
}

}  // namespace

TEST_CASE("copy-out rate: nothing until a window fills, then the window's fastest copy") {
  CopyOutRate r;
  CHECK(feed(r, CopyOutRate::kWindow - 1, 10) == 0);
  CHECK(r.Bps() == 0);
  // The last sample of the window is the fastest: a first fragment's matching or a last
  // one's completion slows the others down, not the copy.
  CHECK(r.record(8000, 8000 / 12.0));
  CHECK(r.Bps() == doctest::Approx(12e9));
}

TEST_CASE("copy-out rate: moves only by more than a tenth, both ways") {
  CopyOutRate r;
  feed(r, CopyOutRate::kWindow, 10);
  REQUIRE(r.Bps() == doctest::Approx(10e9));
  CHECK(feed(r, CopyOutRate::kWindow, 10.5) == 0);  // within a tenth: kept
  CHECK(r.Bps() == doctest::Approx(10e9));
  CHECK(feed(r, CopyOutRate::kWindow, 25) == 1);  // the cores moved closer
  CHECK(r.Bps() == doctest::Approx(25e9));
  CHECK(feed(r, CopyOutRate::kWindow, 9) == 1);  // and apart again
  CHECK(r.Bps() == doctest::Approx(9e9));
}

TEST_CASE("copy-out rate: a zero or negative time is no sample") {
  CopyOutRate r;
  for (unsigned i = 0; i < 2 * CopyOutRate::kWindow; ++i) CHECK_FALSE(r.record(8000, 0));
  CHECK(r.Bps() == 0);
  CHECK_FALSE(r.record(8000, -5));
  CHECK(r.Bps() == 0);
}

TEST_CASE("copy-out rate: one segment in kSampleEvery is timed") {
  CopyOutRate r;
  unsigned timed = 0;
  for (unsigned i = 0; i < 10 * CopyOutRate::kSampleEvery; ++i) timed += r.sample_next() ? 1 : 0;
  CHECK(timed == 10);
}

TEST_CASE("cma fixed cost: a real process_vm_readv of our own memory, or refused") {
  const double ns = torus::shm::measure_cma_fixed_ns();
  if (ns < 0) {
    MESSAGE("skipped: process_vm_readv refused here (the model keeps its constant)");
    return;
  }
  // A 4 KiB copy through one syscall: more than nothing, far less than a millisecond.
  CHECK(ns > 0);
  CHECK(ns < 1e6);
}

namespace {

struct Sink {
  std::vector<std::byte> buf;
  size_t received = 0;
};

void sink_copy(void* arg, const void* data, size_t length) {
  auto* s = static_cast<Sink*>(arg);
  std::memcpy(s->buf.data(), data, length);  // as the protocol layer copies out a fragment
  ++s->received;
}

size_t pack_full(void* dest, void* arg) {
  const auto* src = static_cast<const std::vector<std::byte>*>(arg);
  std::memcpy(dest, src->data(), src->size());
  return src->size();
}

}  // namespace

TEST_CASE("shm iface: the receiver times whole eager segments and eager's cost follows") {
  using namespace torus;
  const std::string job = shm_test::unique_job("rates");
  const shm_test::JobGuard guard{job};
  auto sender = shm_test::open_iface(job, 1, -1);
  auto receiver = shm_test::open_iface(job, 2, -1);
  REQUIRE(sender);
  REQUIRE(receiver);
  auto& rx = static_cast<shm::ShmIface&>(*receiver);
  const size_t seg = sender->attributes().limits.max_bcopy;
  Sink sink{std::vector<std::byte>(seg), 0};
  receiver->set_am_handler(3, &sink_copy, &sink);
  // Progress also times the consumer's line for the placement, whose clock calibration
  // the copy-out samples wait for (about a millisecond).
  auto ep = sender->connect(receiver->address());
  REQUIRE(ep);
  std::vector<std::byte> payload(seg, std::byte{0x5c});
  const double before = receiver->attributes().am_cost.bandwidth_Bps;
  const auto deadline = shm_test::deadline_in(20);
  size_t sent = 0;
  while (rx.copy_out_Bps() == 0 && shm_test::Clock::now() < deadline) {
    if ((*ep)->am_bcopy(3, &pack_full, &payload) == Status::Ok) ++sent;
    sender->progress();
    receiver->progress();
  }
  CHECK(sink.received > 0);
  REQUIRE(rx.copy_out_Bps() > 0);
  // Eager's bandwidth is the placement's constant or the measured rate, whichever is lower.
  const double now = receiver->attributes().am_cost.bandwidth_Bps;
  CHECK(now <= before);
  CHECK(now == doctest::Approx(std::min(before, rx.copy_out_Bps())));
  MESSAGE("copy-out measured at " << rx.copy_out_Bps() / 1e9 << " GB/s after " << sent
                                  << " segments");
}
