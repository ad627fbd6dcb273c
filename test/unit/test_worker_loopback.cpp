// A worker talking to itself (self transport) and to a second worker in the same process
// (shm): the core's protocols end to end without forking, including thread mode multi.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/api/torus.hpp"
#include "test/unit/two_workers.h"

using namespace torus;

namespace {

void roundtrip(Worker& w, Endpoint* ep, size_t n, Tag tag) {
  std::vector<std::byte> s(n), r(n);
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<std::byte>(i * 31 + n);
  Request* rreq = nullptr;
  REQUIRE(w.tag_recv(r.data(), n, tag, kTagMaskFull, &rreq) == Status::InProgress);
  Request* sreq = nullptr;
  Status st = ep->tag_send(s.data(), n, tag, &sreq);
  REQUIRE((st == Status::Ok || st == Status::InProgress));
  CHECK(w.wait_request(rreq, std::chrono::seconds(10)) == Status::Ok);
  CHECK(rreq->info().length == n);
  rreq->release();
  if (st == Status::InProgress) {
    CHECK(w.wait_request(sreq, std::chrono::seconds(10)) == Status::Ok);
    sreq->release();
  }
  CHECK(s == r);
}

using torus::test::TwoWorkers;

}  // namespace

TEST_CASE("a worker sends to itself over self at every protocol") {
  auto ctx = Context::create();
  REQUIRE(ctx.ok());
  auto w = ctx.value()->create_worker();
  REQUIRE(w.ok());
  auto ep = w.value()->connect(w.value()->address());
  REQUIRE(ep.ok());
  CHECK(ep.value()->describe().find("self") != std::string::npos);
  for (size_t n : {size_t{0}, size_t{1}, size_t{200}, size_t{5000}, size_t{300000},
                   size_t{3} << 20})
    roundtrip(*w.value(), ep.value(), n, 100 + n);
}

TEST_CASE("two workers of one process over shm, thread mode multi") {
  TwoWorkers w({{"TORUS_THREAD_MODE", "multi"}});
  auto& a = w.a;
  auto& b = w.b;
  auto& ep = w.ep;
  CHECK(ep->describe().find("shm") != std::string::npos);
  // Another thread progresses the sender while this one waits on the receiver.
  std::atomic<bool> stop{false};
  Worker& sender = *a;
  std::thread t([&] {
    while (!stop.load()) sender.progress();
  });
  constexpr int kN = 64;
  std::vector<std::vector<std::byte>> bufs(kN), out(kN);
  std::vector<Request*> rreqs(kN);
  for (int i = 0; i < kN; ++i) {
    size_t n = static_cast<size_t>(i) * 9973;
    bufs[i].assign(n, static_cast<std::byte>(i));
    out[i].resize(n);
    REQUIRE(b->tag_recv(out[i].data(), n, i, kTagMaskFull, &rreqs[i]) ==
            Status::InProgress);
  }
  std::vector<Request*> sreqs;
  for (int i = 0; i < kN; ++i) {
    Request* r = nullptr;
    Status st = ep->tag_send(bufs[i].data(), bufs[i].size(), i, &r);
    REQUIRE(!is_error(st));
    if (st == Status::InProgress) sreqs.push_back(r);
  }
  for (int i = 0; i < kN; ++i) {
    CHECK(b->wait_request(rreqs[i], std::chrono::seconds(20)) == Status::Ok);
    CHECK(out[i] == bufs[i]);
    rreqs[i]->release();
  }
  for (Request* r : sreqs) {
    while (!r->completed()) b->progress();
    CHECK(r->status() == Status::Ok);
    r->release();
  }
  stop = true;
  t.join();
}

TEST_CASE("a worker destroyed while reassembling an unexpected message frees it once") {
  TwoWorkers w({{"TORUS_PROTO", "eager_bcopy"}});
  auto& a = w.a;
  auto& b = w.b;
  auto& ep = w.ep;
  // Far more fragments than the ring (256 cells of ~8 KiB) and the three rounds below move.
  std::vector<std::byte> big(8 << 20, std::byte{7});
  Request* req = nullptr;
  REQUIRE(ep->tag_send(big.data(), big.size(), 1, &req) == Status::InProgress);
  for (int i = 0; i < 3; ++i) {
    a->progress();
    b->progress();
  }
  RecvInfo info;
  CHECK(b->tag_probe(1, kTagMaskFull, &info));  // first fragments arrived
  CHECK(info.length == big.size());
  CHECK_FALSE(req->completed());
  b.reset();  // mid-message: the partial unexpected message is freed exactly once
  req->release();
}

TEST_CASE("a receive posted against an unexpected RTS reads on progress, not while posting") {
  // Posting must return at once: a program that posts its receives and then its sends would
  // otherwise leave its peer idle for the whole copy (the two directions taking turns).
  TwoWorkers w({{"TORUS_SHM_COOP_THRESH", "0"}});
  constexpr size_t kN = 1 << 20;
  std::vector<std::byte> s(kN), r(kN, std::byte{0});
  for (size_t i = 0; i < kN; ++i) s[i] = static_cast<std::byte>(i * 7 + 3);
  Request* sreq = nullptr;
  REQUIRE(w.ep->tag_send(s.data(), kN, 42, &sreq) == Status::InProgress);
  RecvInfo info{};
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!w.b->tag_probe(42, kTagMaskFull, &info)) {
    w.a->progress();
    w.b->progress();
    REQUIRE(std::chrono::steady_clock::now() < until);
  }
  REQUIRE(info.length == kN);
  Request* rreq = nullptr;
  REQUIRE(w.b->tag_recv(r.data(), kN, 42, kTagMaskFull, &rreq) == Status::InProgress);
  CHECK_FALSE(rreq->completed());
  CHECK(std::all_of(r.begin(), r.end(), [](std::byte b) { return b == std::byte{0}; }));
  CHECK(w.b->wait_request(rreq, std::chrono::seconds(10)) == Status::Ok);
  CHECK(r == s);
  rreq->release();
  while (!sreq->completed()) w.a->progress();
  CHECK(sreq->status() == Status::Ok);
  sreq->release();
}

TEST_CASE("an endpoint reports where its rendezvous starts") {
  TwoWorkers w({{"TORUS_RNDV_THRESH", "64k"}});
  CHECK(w.ep->rndv_threshold() == 65536);
  CHECK(w.ep->describe().find("65536 .. inf") != std::string::npos);
}
