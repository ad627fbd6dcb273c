// Matched probe (Worker::tag_probe_remove + tag_msg_recv, what MPI_Mprobe/MPI_Mrecv use): a
// taken message is invisible to every other receive and probe, and is received whole later,
// eager, rendezvous, or still arriving in fragments when it was taken.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "core/api/torus.hpp"
#include "test/unit/two_workers.h"

using namespace torus;

namespace {

std::vector<std::byte> pattern(size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 17) & 0xff);
  return v;
}

// Progresses until a message matching (tag, mask) is taken, for at most ~10 s.
Message* take(Worker& w, Tag tag, Tag mask, RecvInfo* info) {
  for (int i = 0; i < 1000000; ++i) {
    if (Message* m = w.tag_probe_remove(tag, mask, info)) return m;
    w.progress();
  }
  return nullptr;
}

struct SelfWorker {
  SelfWorker() {
    auto c = Context::create();
    REQUIRE(c.ok());
    ctx = std::move(c.value());
    auto w = ctx->create_worker();
    REQUIRE(w.ok());
    worker = std::move(w.value());
    auto e = worker->connect(worker->address());
    REQUIRE(e.ok());
    ep = e.value();
  }
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Worker> worker;
  Endpoint* ep = nullptr;
};

}  // namespace

TEST_CASE("a taken message escapes every other receive and is received later") {
  SelfWorker s;
  Worker& w = *s.worker;
  const size_t kSmall = 100, kLarge = size_t{3} << 20;  // eager and rendezvous
  auto small = pattern(kSmall, 1), large = pattern(kLarge, 2);
  Request* sreq[2] = {nullptr, nullptr};
  REQUIRE(!is_error(s.ep->tag_send(small.data(), kSmall, 0x51, &sreq[0])));
  REQUIRE(!is_error(s.ep->tag_send(large.data(), kLarge, 0x52, &sreq[1])));

  RecvInfo info;
  Message* m_small = take(w, 0x51, kTagMaskFull, &info);
  REQUIRE(m_small != nullptr);
  CHECK(info.tag == 0x51);
  CHECK(info.length == kSmall);
  Message* m_large = take(w, 0x50, ~Tag{0xf}, &info);  // a wildcard probe takes the other
  REQUIRE(m_large != nullptr);
  CHECK(info.tag == 0x52);
  CHECK(info.length == kLarge);
  CHECK(w.tag_probe_remove(0, 0, &info) == nullptr);
  CHECK_FALSE(w.tag_probe(0, 0, &info));

  // A full-wildcard receive posted now matches neither taken message.
  std::vector<std::byte> stray(16);
  Request* wild = nullptr;
  REQUIRE(w.tag_recv(stray.data(), stray.size(), 0, 0, &wild) == Status::InProgress);
  for (int i = 0; i < 100; ++i) w.progress();
  CHECK_FALSE(wild->completed());
  CHECK(w.cancel(wild) == Status::Ok);
  CHECK(wild->status() == Status::Canceled);
  wild->release();

  // Received in the opposite order of arrival.
  std::vector<std::byte> in_large(kLarge), in_small(kSmall);
  Request* r = nullptr;
  REQUIRE(w.tag_msg_recv(m_large, in_large.data(), kLarge, &r) == Status::InProgress);
  CHECK(w.wait_request(r, std::chrono::seconds(10)) == Status::Ok);
  CHECK(r->info().tag == 0x52);
  CHECK(r->info().length == kLarge);
  r->release();
  CHECK(in_large == large);
  REQUIRE(w.tag_msg_recv(m_small, in_small.data(), kSmall, &r) == Status::InProgress);
  CHECK(w.wait_request(r, std::chrono::seconds(10)) == Status::Ok);
  CHECK(r->info().length == kSmall);
  r->release();
  CHECK(in_small == small);
  for (Request* q : sreq) {
    if (q == nullptr) continue;
    CHECK(w.wait_request(q, std::chrono::seconds(10)) == Status::Ok);
    q->release();
  }
}

TEST_CASE("a taken message truncates like a receive: BufferTooSmall, full length reported") {
  SelfWorker s;
  Worker& w = *s.worker;
  auto msg = pattern(64, 3);
  Request* sreq = nullptr;
  REQUIRE(!is_error(s.ep->tag_send(msg.data(), msg.size(), 7, &sreq)));
  RecvInfo info;
  Message* m = take(w, 7, kTagMaskFull, &info);
  REQUIRE(m != nullptr);
  std::vector<std::byte> in(16);
  Request* r = nullptr;
  REQUIRE(w.tag_msg_recv(m, in.data(), in.size(), &r) == Status::InProgress);
  CHECK(w.wait_request(r, std::chrono::seconds(10)) == Status::BufferTooSmall);
  CHECK(r->info().length == 64);
  CHECK(std::equal(in.begin(), in.end(), msg.begin()));
  r->release();
  if (sreq) {
    CHECK(w.wait_request(sreq, std::chrono::seconds(10)) == Status::Ok);
    sreq->release();
  }
}

// Two workers of one process over shm, by default with eager fragments only, so a large
// message is still arriving when it is taken.
struct FragmentPair : torus::test::TwoWorkers {
  FragmentPair() : TwoWorkers({{"TORUS_PROTO", "eager_bcopy"}}) {}
  FragmentPair(const char* var, const char* value) : TwoWorkers({{var, value}}) {}
};

TEST_CASE("a message taken while its fragments arrive is completed by the later ones") {
  FragmentPair p;
  const size_t n = size_t{3} << 20;  // more fragments than the shm ring holds
  auto big = pattern(n, 4);
  Request* sreq = nullptr;
  REQUIRE(p.ep->tag_send(big.data(), n, 9, &sreq) == Status::InProgress);
  RecvInfo info;
  Message* m = nullptr;
  for (int i = 0; i < 100000 && m == nullptr; ++i) {
    p.a->progress();
    p.b->progress();
    m = p.b->tag_probe_remove(9, kTagMaskFull, &info);
  }
  REQUIRE(m != nullptr);
  CHECK(info.length == n);
  CHECK_FALSE(sreq->completed());  // taken mid-message
  std::vector<std::byte> in(n);
  Request* r = nullptr;
  REQUIRE(p.b->tag_msg_recv(m, in.data(), n, &r) == Status::InProgress);
  for (int i = 0; i < 10000000 && !(r->completed() && sreq->completed()); ++i) {
    p.a->progress();
    p.b->progress();
  }
  REQUIRE(r->completed());
  CHECK(r->status() == Status::Ok);
  CHECK(in == big);
  r->release();
  REQUIRE(sreq->completed());
  sreq->release();
}

TEST_CASE("a worker destroyed while holding a taken, half-arrived message frees it once") {
  FragmentPair p;
  std::vector<std::byte> big(size_t{3} << 20, std::byte{7});
  Request* sreq = nullptr;
  REQUIRE(p.ep->tag_send(big.data(), big.size(), 1, &sreq) == Status::InProgress);
  Message* m = nullptr;
  for (int i = 0; i < 100000 && m == nullptr; ++i) {
    p.a->progress();
    p.b->progress();
    m = p.b->tag_probe_remove(1, kTagMaskFull, nullptr);
  }
  REQUIRE(m != nullptr);
  p.b.reset();
  sreq->release();
}

// One thread takes messages with tag_probe_remove while another posts full-wildcard
// receives on the same worker: every message must arrive exactly once, whole.
TEST_CASE("a matched probe and a concurrent wildcard receive never get the same message") {
  FragmentPair p("TORUS_THREAD_MODE", "multi");
  Worker& b = *p.b;
  constexpr int kN = 300;
  auto size_of = [](int i) { return i % 3 == 0 ? size_t{5000} : size_t{64}; };
  std::mutex mu;
  std::vector<int> seen(kN, 0);
  std::atomic<int> received{0};
  std::atomic<bool> bad_data{false};
  auto record = [&](const RecvInfo& info, const std::vector<std::byte>& buf) {
    const int i = static_cast<int>(info.tag);
    if (i < 0 || i >= kN || info.length != size_of(i) ||
        !std::equal(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(info.length),
                    pattern(info.length, static_cast<unsigned>(i)).begin()))
      bad_data = true;
    std::lock_guard lock(mu);
    if (i >= 0 && i < kN) ++seen[static_cast<size_t>(i)];
    ++received;
  };
  std::thread prober([&] {
    std::vector<std::byte> buf(5000);
    while (received.load() < kN) {
      RecvInfo info;
      Message* m = b.tag_probe_remove(0, 0, &info);
      if (m == nullptr) {
        b.progress();
        continue;
      }
      Request* r = nullptr;
      if (b.tag_msg_recv(m, buf.data(), buf.size(), &r) != Status::InProgress) {
        bad_data = true;
        return;
      }
      if (b.wait_request(r, std::chrono::seconds(10)) != Status::Ok) bad_data = true;
      record(r->info(), buf);
      r->release();
    }
  });
  std::thread receiver([&] {
    std::vector<std::byte> buf(5000);
    while (received.load() < kN) {
      Request* r = nullptr;
      if (b.tag_recv(buf.data(), buf.size(), 0, 0, &r) != Status::InProgress) {
        bad_data = true;
        return;
      }
      while (!r->completed() && received.load() < kN) b.progress();
      // Everything arrived elsewhere: withdraw the receive, unless it matched meanwhile.
      if (!r->completed() && b.cancel(r) == Status::Ok) {
        r->release();
        return;
      }
      if (b.wait_request(r, std::chrono::seconds(10)) != Status::Ok) bad_data = true;
      record(r->info(), buf);
      r->release();
    }
  });
  std::vector<std::vector<std::byte>> out(kN);
  std::vector<Request*> sreqs;
  for (int i = 0; i < kN; ++i) {
    out[static_cast<size_t>(i)] = pattern(size_of(i), static_cast<unsigned>(i));
    Request* r = nullptr;
    Status st = p.ep->tag_send(out[static_cast<size_t>(i)].data(), size_of(i),
                               static_cast<Tag>(i), &r);
    REQUIRE(!is_error(st));
    if (st == Status::InProgress) sreqs.push_back(r);
    p.a->progress();
  }
  for (Request* r : sreqs) {
    while (!r->completed()) p.a->progress();
    r->release();
  }
  prober.join();
  receiver.join();
  CHECK_FALSE(bad_data.load());
  CHECK(received.load() == kN);
  for (int i = 0; i < kN; ++i) CHECK(seen[static_cast<size_t>(i)] == 1);
}
