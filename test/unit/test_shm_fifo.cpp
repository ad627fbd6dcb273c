// Unit tests of the shm transport's FIFO: concurrent producers in separate processes with
// back-pressure, a full ring, lanes, sleeping and waking, cells handed back once per batch,
// prefetching, malformed cells. The segments it lives in: test_shm_segment.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "test/unit/test_shm_helpers.h"
#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_segment.h"

using namespace torus;

namespace {

using namespace torus::shm_test;

// ---- messages of the multi-producer test ----

struct Msg {
  uint32_t producer;
  uint32_t seq;
  uint32_t length;  // total bytes including this header
};

std::byte pattern(uint32_t producer, uint32_t seq, size_t k) {
  return static_cast<std::byte>((producer * 31 + seq * 7 + k) & 0xff);
}

size_t msg_size(uint32_t seq) {
  return seq % 5 == 0 ? 200 + (seq * 37) % 7000 : sizeof(Msg) + seq % (shm::kMaxInline - 11);
}

size_t pack_msg(void* dest, void* arg) {
  const Msg& m = *static_cast<const Msg*>(arg);
  auto* d = static_cast<std::byte*>(dest);
  std::memcpy(d, &m, sizeof(m));
  for (size_t k = sizeof(m); k < m.length; ++k) d[k] = pattern(m.producer, m.seq, k);
  return m.length;
}

struct Sink {
  std::vector<uint32_t> next;  // expected seq per producer
  size_t received = 0;
  size_t errors = 0;
};

void sink_handler(void* arg, const void* data, size_t length) {
  Sink& s = *static_cast<Sink*>(arg);
  ++s.received;
  Msg m;
  if (length < sizeof(m)) {
    ++s.errors;
    return;
  }
  std::memcpy(&m, data, sizeof(m));
  if (m.producer >= s.next.size() || m.length != length || m.seq != s.next[m.producer]) {
    ++s.errors;
    return;
  }
  ++s.next[m.producer];
  const auto* d = static_cast<const std::byte*>(data);
  for (size_t k = sizeof(m); k < length; ++k)
    if (d[k] != pattern(m.producer, m.seq, k)) {
      ++s.errors;
      return;
    }
}

}  // namespace

TEST_CASE("shm fifo: three producer processes into small rings, every message once, in order") {
  constexpr uint32_t kProducers = 3;
  // All three on the shared ring; one on a lane and two sharing the ring; each on its lane.
  std::string lanes;
  SUBCASE("no lanes") { lanes = "TORUS_SHM_LANES=0"; }
  SUBCASE("one lane") { lanes = "TORUS_SHM_LANES=1"; }
  SUBCASE("a lane each") { lanes = "TORUS_SHM_LANES=auto"; }
  constexpr uint32_t kMessages = 3000;
  const std::string job = unique_job("fifo");
  const JobGuard guard{job};
  Pipe to_child[kProducers], from_child[kProducers];
  pid_t pids[kProducers];
  for (uint32_t i = 0; i < kProducers; ++i) {
    pids[i] = spawn([&, i]() -> int {
      const auto deadline = deadline_in(60);
      auto addr = recv_blob(to_child[i].rd, deadline);
      if (!addr) return 10;
      auto iface = open_iface(job, 0x1000 + i, -1);
      if (!iface) return 11;
      auto ep = iface->connect(*addr);
      if (!ep) return 12;
      bool signalled = false;
      for (uint32_t seq = 0; seq < kMessages; ++seq) {
        Msg m{i, seq, static_cast<uint32_t>(msg_size(seq))};
        std::byte payload[shm::kMaxInline];
        for (size_t k = sizeof(m); k < m.length && m.length <= shm::kMaxInline; ++k)
          payload[k - sizeof(m)] = pattern(i, seq, k);
        for (;;) {
          Status s = m.length <= shm::kMaxInline
                         ? (*ep)->am_short(3, std::as_bytes(std::span(&m, 1)),
                                           std::span(payload, m.length - sizeof(m)))
                         : (*ep)->am_bcopy(3, pack_msg, &m);
          if (s == Status::Ok) break;
          if (s != Status::NoResource) return 13;
          if (!signalled) {
            signalled = true;
            if (!write_all(from_child[i].wr, "x", 1)) return 14;
          }
          iface->progress();
          if (Clock::now() > deadline) return 15;
        }
      }
      return signalled ? 0 : 16;
    });
    REQUIRE(pids[i] > 0);
  }

  auto cfg = load_config({"TORUS_SHM_FIFO_SIZE=4", lanes});
  REQUIRE(cfg);
  auto consumer = open_iface(job, 0x1, kProducers, cfg.get());
  REQUIRE(consumer);
  Sink sink;
  sink.next.assign(kProducers, 0);
  consumer->set_am_handler(3, sink_handler, &sink);
  for (uint32_t i = 0; i < kProducers; ++i) REQUIRE(send_blob(to_child[i].wr, consumer->address()));

  // Consume only after every producer has met a full ring.
  const auto deadline = deadline_in(60);
  for (uint32_t i = 0; i < kProducers; ++i) {
    char c;
    REQUIRE(read_all(from_child[i].rd, &c, 1, deadline));
  }
  while (sink.received < kProducers * kMessages && Clock::now() < deadline) consumer->progress();
  CHECK(sink.received == kProducers * kMessages);
  CHECK(sink.errors == 0);
  for (uint32_t i = 0; i < kProducers; ++i) {
    CHECK(sink.next[i] == kMessages);
    CHECK(reap(pids[i], deadline) == 0);
  }
  // Every expected peer attached, so the name went long before the iface does.
  CHECK(leftovers(job).empty());
  consumer.reset();
  CHECK(leftovers(job).empty());
}

TEST_CASE("shm fifo: a full ring answers NoResource, recovers, and wakes a sleeping consumer") {
  const std::string job = unique_job("full");
  const JobGuard guard{job};
  auto cfg = load_config({"TORUS_SHM_FIFO_SIZE=4", "TORUS_SHM_LANES=0"});
  REQUIRE(cfg);
  auto rx = open_iface(job, 1, -1, cfg.get());
  auto tx = open_iface(job, 2, -1);
  REQUIRE(rx);
  REQUIRE(tx);
  Sink sink;
  sink.next.assign(1, 0);
  rx->set_am_handler(0, sink_handler, &sink);
  auto ep = tx->connect(rx->address());
  REQUIRE(ep);
  auto send = [&](uint32_t seq) {
    Msg m{0, seq, sizeof(Msg)};
    return (*ep)->am_short(0, std::as_bytes(std::span(&m, 1)), {});
  };
  for (uint32_t i = 0; i < 4; ++i) CHECK(send(i) == Status::Ok);
  CHECK(send(4) == Status::NoResource);
  CHECK(rx->arm() == Status::NoResource);  // work is waiting
  CHECK(rx->progress() == 4);
  CHECK(send(4) == Status::Ok);
  CHECK(rx->progress() == 1);
  CHECK(sink.next[0] == 5);

  // Sleeping: nothing pending, arm says Ok, a send makes event_fd readable.
  CHECK(rx->arm() == Status::Ok);
  pollfd pfd{rx->event_fd(), POLLIN, 0};
  CHECK(::poll(&pfd, 1, 0) == 0);
  CHECK(send(5) == Status::Ok);
  CHECK(::poll(&pfd, 1, 10000) == 1);
  CHECK(rx->progress() == 1);
  // The wake-up was consumed: the fd is quiet again.
  CHECK(::poll(&pfd, 1, 0) == 0);
  CHECK(sink.errors == 0);

  // Limits: am_short beyond max_short and bad ids are refused before touching the ring.
  std::vector<std::byte> big(rx->attributes().limits.max_short + 1);
  CHECK((*ep)->am_short(0, big, {}) == Status::InvalidParam);
  CHECK((*ep)->am_short(tl::kMaxAmId, {}, {}) == Status::InvalidParam);
}

TEST_CASE("shm lanes: a producer keeps its lane until it leaves, then the next one takes it") {
  const std::string job = unique_job("lane");
  const JobGuard guard{job};
  auto cfg = load_config({"TORUS_SHM_LANES=1", "TORUS_SHM_LANE_SIZE=4"});
  REQUIRE(cfg);
  auto rx = open_iface(job, 1, -1, cfg.get());
  REQUIRE(rx);
  Sink sink;
  sink.next.assign(3, 0);
  rx->set_am_handler(0, sink_handler, &sink);
  shm::PeerAddress pa;
  REQUIRE(shm::parse_address(rx->address(), &pa, nullptr));
  auto seg = shm::Segment::attach(pa.name, pa.header.pid);
  REQUIRE(seg);
  REQUIRE((*seg)->geometry().lanes == 1);
  shm::SegmentHeader& h = *(*seg)->header();
  shm::LaneHeader& lane = *(*seg)->lane_header(0);
  auto send = [](tl::Endpoint& ep, uint32_t producer, uint32_t seq) {
    Msg m{producer, seq, sizeof(Msg)};
    return ep.am_short(0, std::as_bytes(std::span(&m, 1)), {});
  };
  auto tx = open_iface(job, 2, -1);
  REQUIRE(tx);
  {
    auto ep = tx->connect(rx->address());
    REQUIRE(ep);
    CHECK(lane.owner.load() == ::getpid());
    CHECK(h.lanes_used.load() == 1);
    // The lane's four cells, then a full lane: never a spill into the shared ring, whose
    // messages could overtake ours.
    for (uint32_t i = 0; i < 4; ++i) CHECK(send(**ep, 0, i) == Status::Ok);
    CHECK(send(**ep, 0, 4) == Status::NoResource);
    CHECK(h.tail.load() == 0);
    // A second producer finds the lane taken and shares the ring.
    auto tx2 = open_iface(job, 3, -1);
    REQUIRE(tx2);
    auto ep2 = tx2->connect(rx->address());
    REQUIRE(ep2);
    CHECK(send(**ep2, 1, 0) == Status::Ok);
    CHECK(h.tail.load() == 1);
    CHECK(rx->progress() == 5);
    CHECK(send(**ep, 0, 4) == Status::Ok);
    CHECK(rx->progress() == 1);
  }
  // The producer's iface is gone: its lane is free, the consumer still polls it.
  tx.reset();
  CHECK(lane.owner.load() == 0);
  CHECK(h.lanes_used.load() == 1);
  auto tx3 = open_iface(job, 4, -1);
  REQUIRE(tx3);
  auto ep3 = tx3->connect(rx->address());
  REQUIRE(ep3);
  CHECK(lane.owner.load() == ::getpid());
  CHECK(lane.tail.load() == 5);  // continues where the last owner stopped
  // Round the lane twice, and sleep and wake on it.
  for (uint32_t seq = 0; seq < 8; ++seq) {
    CHECK(send(**ep3, 2, seq) == Status::Ok);
    CHECK(rx->progress() == 1);
  }
  CHECK(rx->arm() == Status::Ok);
  pollfd pfd{rx->event_fd(), POLLIN, 0};
  CHECK(::poll(&pfd, 1, 0) == 0);
  CHECK(send(**ep3, 2, 8) == Status::Ok);
  CHECK(::poll(&pfd, 1, 10000) == 1);
  CHECK(rx->progress() == 1);
  CHECK(sink.next == std::vector<uint32_t>{5, 1, 9});
  CHECK(sink.errors == 0);
}

TEST_CASE("shm fifo: the consumer hands cells back once per batch and never writes a cell") {
  constexpr uint32_t kSize = 4;
  shm::SegmentHeader header{};
  alignas(shm::kCacheLine) shm::Cell cells[kSize];
  const shm::RingView ring = shm::shared_ring(&header, cells, nullptr, kSize, 0);
  shm::fifo_init(ring);
  shm::FifoWriter w(ring, 1);
  shm::FifoReader r(ring);
  shm::FifoWriter::Slot slot;
  for (uint32_t i = 0; i < kSize; ++i) {
    REQUIRE(w.claim(slot));
    CHECK(slot.pos == i);
    CHECK_FALSE(w.publish(slot, 1, 0, i));
  }
  CHECK_FALSE(w.claim(slot));  // full
  for (int i = 0; i < 2; ++i) {
    const shm::Cell* c = r.peek();
    REQUIRE(c != nullptr);
    CHECK(c->length == static_cast<uint32_t>(i));
    r.release();
  }
  // Consumed but not yet handed back: still full for producers.
  CHECK_FALSE(w.claim(slot));
  r.publish_released();
  CHECK(header.released.load() == 2);
  // The consumer left the sequence words as published.
  for (uint32_t i = 0; i < kSize; ++i) CHECK(cells[i].seq.load() == i + 1);
  REQUIRE(w.claim(slot));
  CHECK(slot.pos == 4);
  CHECK(slot.cell == &cells[0]);
  CHECK_FALSE(w.publish(slot, 1, 0, 4));
  REQUIRE(w.claim(slot));
  CHECK_FALSE(w.claim(slot));
  // The consumer sees positions 2, 3, 4 (cell 0, second lap) and no stale cell of lap one.
  for (uint32_t pos = 2; pos <= 4; ++pos) {
    const shm::Cell* c = r.peek();
    REQUIRE(c != nullptr);
    CHECK(c->length == pos);
    r.release();
  }
  CHECK(r.peek() == nullptr);  // position 5 is claimed, not published
  // arm() hands the batch back too, so producers never wait on a sleeping consumer, and a
  // claimed message still being written keeps the consumer awake.
  CHECK_FALSE(r.arm());
  CHECK(header.released.load() == 5);
  CHECK(header.sleeping.load() == 0);
  CHECK_FALSE(w.publish(slot, 1, 0, 5));
  REQUIRE(r.peek() != nullptr);
  r.release();
  CHECK(r.arm());
  CHECK(header.sleeping.load() == 1);
  // A producer that claims after the consumer armed wakes it, exactly once.
  REQUIRE(w.claim(slot));
  CHECK(w.publish(slot, 1, 0, 6));
  CHECK(header.sleeping.load() == 0);
  REQUIRE(w.claim(slot));
  CHECK_FALSE(w.publish(slot, 1, 0, 7));

  // A writer idle while others sent 2^31 messages must not take its stale view for room.
  shm::FifoWriter other(ring, 2);
  header.tail.store(0x80000010u);
  header.released.store(0x80000010u);
  for (uint32_t i = 0; i < kSize; ++i) {
    REQUIRE(other.claim(slot));
    CHECK_FALSE(other.publish(slot, 1, 0, 0));
  }
  CHECK_FALSE(w.claim(slot));
  CHECK(header.tail.load() == 0x80000014u);
}

TEST_CASE("shm fifo: a consumer waiting on an empty cell changes nothing it prefetches") {
  constexpr uint32_t kSize = 4;
  constexpr uint32_t kSeg = 1024;
  shm::SegmentHeader header{};
  alignas(shm::kCacheLine) shm::Cell cells[kSize];
  alignas(shm::kCacheLine) std::byte segs[kSize * kSeg];
  const shm::RingView ring = shm::shared_ring(&header, cells, segs, kSize, kSeg);
  shm::fifo_init(ring);
  std::memset(segs, 0x3c, sizeof(segs));
  shm::FifoWriter w(ring, 1);
  shm::FifoReader r(ring);
  // Spans in and beyond the limit (a malformed length must not widen the prefetch).
  for (uint32_t span : {0u, 320u, 640u, 641u, 0xffffffffu}) {
    r.note_segment_span(span);
    REQUIRE(r.peek() == nullptr);
    for (int i = 0; i < 3; ++i) r.prefetch_head();
  }
  CHECK(header.tail.load() == 0);
  CHECK(header.released.load() == 0);
  for (uint32_t i = 0; i < kSize; ++i) CHECK(cells[i].seq.load() == i);
  CHECK(std::all_of(segs, segs + sizeof(segs), [](std::byte b) { return b == std::byte{0x3c}; }));
  // A message published after the waiting is read whole.
  shm::FifoWriter::Slot slot;
  REQUIRE(w.claim(slot));
  std::memset(slot.seg, 0x5a, 600);
  CHECK_FALSE(w.publish(slot, 1, shm::kCellBcopy, 600));
  const shm::Cell* c = r.peek();
  REQUIRE(c != nullptr);
  CHECK(c->length == 600);
  CHECK(r.segment_of_head()[599] == std::byte{0x5a});
  r.note_segment_span(600);
  r.release();
  r.prefetch_head();
  CHECK(r.peek() == nullptr);
}

TEST_CASE("shm fifo: a malformed cell drops its sender and the receiver keeps running") {
  const std::string job = unique_job("bad");
  const JobGuard guard{job};
  // What the first cell gets wrong.
  enum class Bad { AmId, OffsetPastLine, PastSegment } bad = Bad::AmId;
  SUBCASE("active message id out of range") { bad = Bad::AmId; }
  SUBCASE("bcopy payload offset of a line or more") { bad = Bad::OffsetPastLine; }
  SUBCASE("bcopy offset plus length past the segment") { bad = Bad::PastSegment; }
  Pipe to_child, from_child;
  const pid_t pid = spawn([&]() -> int {
    const auto deadline = deadline_in(30);
    auto addr = recv_blob(to_child.rd, deadline);
    if (!addr) return 10;
    auto iface = open_iface(job, 7, -1);
    if (!iface || !send_blob(from_child.wr, iface->address())) return 11;
    shm::PeerAddress pa;
    if (!shm::parse_address(*addr, &pa, nullptr)) return 12;
    auto seg = shm::Segment::attach(pa.name, pa.header.pid);
    if (!seg) return 13;
    const shm::Geometry& g = (*seg)->geometry();
    shm::FifoWriter w((*seg)->ring(), ::getpid());
    shm::FifoWriter::Slot slot;
    if (!w.claim(slot)) return 14;
    switch (bad) {
      case Bad::AmId: (void)w.publish(slot, 200, 0, 4); break;
      case Bad::OffsetPastLine: (void)w.publish(slot, 1, shm::kCellBcopy, 4, 64); break;
      case Bad::PastSegment: (void)w.publish(slot, 1, shm::kCellBcopy, g.seg_size - 8, 16); break;
    }
    if (!w.claim(slot)) return 15;
    (void)w.publish(slot, 1, 0, 4);    // well-formed, but from a dropped peer
    char c;
    return read_all(to_child.rd, &c, 1, deadline) ? 0 : 16;  // stay alive until told
  });
  REQUIRE(pid > 0);
  auto rx = open_iface(job, 1, -1);
  REQUIRE(rx);
  struct Seen {
    int errors = 0;
    Status status = Status::Ok;
    int messages = 0;
  } seen;
  rx->set_error_handler(
      [](void* arg, tl::Endpoint*, Status s) {
        static_cast<Seen*>(arg)->errors++;
        static_cast<Seen*>(arg)->status = s;
      },
      &seen);
  rx->set_am_handler(1, [](void* arg, const void*, size_t) { static_cast<Seen*>(arg)->messages++; },
                     &seen);
  REQUIRE(send_blob(to_child.wr, rx->address()));
  const auto deadline = deadline_in(30);
  auto child_addr = recv_blob(from_child.rd, deadline);
  REQUIRE(child_addr);
  auto ep = rx->connect(*child_addr);
  REQUIRE(ep);
  while (seen.errors == 0 && Clock::now() < deadline) rx->progress();
  for (int i = 0; i < 100; ++i) rx->progress();
  CHECK(seen.errors == 1);
  CHECK(seen.status == Status::ProtocolError);
  CHECK(seen.messages == 0);
  CHECK((*ep)->am_short(1, {}, {}) == Status::ProtocolError);
  REQUIRE(write_all(to_child.wr, "x", 1));
  CHECK(reap(pid, deadline) == 0);
}
