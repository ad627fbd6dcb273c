// Public RMA: put/get through registered memory between two workers of one process (shm)
// and within one worker (self); keys that are forged, out of range or stale are refused.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "core/api/torus.hpp"

using namespace torus;

namespace {

struct Pair {
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Worker> a, b;
  Endpoint* ep = nullptr;
};

Pair make_pair(bool loopback) {
  Pair p;
  auto ctx = Context::create();
  REQUIRE(ctx.ok());
  p.ctx = std::move(ctx.value());
  auto a = p.ctx->create_worker();
  REQUIRE(a.ok());
  p.a = std::move(a.value());
  if (!loopback) {
    auto b = p.ctx->create_worker();
    REQUIRE(b.ok());
    p.b = std::move(b.value());
  }
  auto ep = p.a->connect(loopback ? p.a->address() : p.b->address());
  REQUIRE(ep.ok());
  p.ep = ep.value();
  return p;
}

Status finish(Pair& p, Status s, Request* req) {
  if (s != Status::InProgress) return s;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!req->completed() && std::chrono::steady_clock::now() < until) {
    p.a->progress();
    if (p.b) p.b->progress();
  }
  Status st = req->completed() ? req->status() : Status::Timeout;
  req->release();
  return st;
}

void run(bool loopback) {
  Pair p = make_pair(loopback);
  Worker& target = loopback ? *p.a : *p.b;
  for (size_t n : {size_t{1}, size_t{4096}, size_t{3} << 20}) {
    std::vector<std::byte> remote(n + 64, std::byte{0}), local(n);
    for (size_t i = 0; i < n; ++i) local[i] = static_cast<std::byte>(i * 13 + 1);
    auto mh = target.mem_register(remote.data(), remote.size(), kMemRead | kMemWrite);
    REQUIRE(mh.ok());
    std::vector<std::byte> rkey = mh.value()->pack_rkey();
    uint64_t base = reinterpret_cast<uint64_t>(remote.data());
    Request* req = nullptr;
    CHECK(finish(p, p.ep->put(local.data(), n, base + 32, rkey, &req), req) == Status::Ok);
    CHECK(std::memcmp(remote.data() + 32, local.data(), n) == 0);
    CHECK(remote[31] == std::byte{0});
    std::vector<std::byte> back(n);
    CHECK(finish(p, p.ep->get(back.data(), n, base + 32, rkey, &req), req) == Status::Ok);
    CHECK(back == local);
    CHECK(finish(p, p.ep->flush(&req), req) == Status::Ok);

    // Out of range: one byte past the region.
    CHECK(finish(p, p.ep->get(back.data(), 65, base + n, rkey, &req), req) ==
          Status::AccessDenied);
    // Forged: flip a byte of every transport's key.
    std::vector<std::byte> forged = rkey;
    for (size_t i = 7; i < forged.size(); i += 9) forged[i] ^= std::byte{0x5a};
    Status fs = finish(p, p.ep->get(back.data(), 1, base, forged, &req), req);
    CHECK((fs == Status::AccessDenied || fs == Status::InvalidParam));
    // Stale: deregistered memory is no longer reachable.
    target.mem_deregister(mh.value());
    CHECK(finish(p, p.ep->put(local.data(), 1, base, rkey, &req), req) == Status::AccessDenied);
    CHECK(remote[0] == std::byte{0});
  }
  // Read-only registration refuses a put.
  std::vector<std::byte> ro(100, std::byte{9}), src(100, std::byte{1});
  auto mh = target.mem_register(ro.data(), ro.size(), kMemRead);
  REQUIRE(mh.ok());
  Request* req = nullptr;
  CHECK(finish(p, p.ep->put(src.data(), 100, reinterpret_cast<uint64_t>(ro.data()),
                            mh.value()->pack_rkey(), &req),
               req) == Status::AccessDenied);
  CHECK(ro[0] == std::byte{9});
  target.mem_deregister(mh.value());
}

}  // namespace

TEST_CASE("put/get between two workers over shm") { run(false); }
TEST_CASE("put/get of a worker to itself over self") { run(true); }
