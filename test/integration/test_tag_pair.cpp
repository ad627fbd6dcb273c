// Two real processes exchanging tagged messages over the default transports: every size
// around each protocol threshold and powers of two to 64 MiB, expected and unexpected,
// wildcards and ordering, many outstanding requests, synchronous sends. Data is checked
// byte for byte. Run under several TORUS_PROTO / TORUS_SHM_CMA settings by CTest.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>
#include <thread>

#include "test/integration/pair.h"
#include "test/sockets_loopback.h"

using namespace torus;
using namespace torus::test;
using namespace std::chrono_literals;

namespace {

// Sizes: 0, 1, powers of two to 64 MiB, and -1/0/+1 around every range of the endpoint's
// protocol table (parsed from Endpoint::describe()).
std::vector<size_t> test_sizes(const Endpoint* ep) {
  std::set<size_t> s{0, 1};
  for (size_t p = 2; p <= (64u << 20); p *= 2) s.insert(p);
  std::istringstream in(ep->describe());
  std::string line;
  while (std::getline(in, line)) {
    size_t lo = 0;
    char dots[8];
    if (std::sscanf(line.c_str(), " %zu %2s", &lo, dots) == 2 && std::string(dots) == "..") {
      for (size_t d : {lo - 1, lo, lo + 1})
        if (lo > 0 && d <= (64u << 20)) s.insert(d);
    }
  }
  return {s.begin(), s.end()};
}

int fail(const char* what, size_t size, Status s = Status::Ok) {
  std::fprintf(stderr, "FAILED: %s (size %zu, status %s)\n", what, size, status_string(s));
  return 1;
}

int send_one(Peer& p, const std::vector<std::byte>& buf, Tag tag, bool sync = false) {
  Request* req = nullptr;
  SendParams sp;
  sp.sync = sync;
  Status s = p.ep->tag_send(buf.data(), buf.size(), tag, &req, sp);
  if (s == Status::InProgress) {
    s = p.wait(req);
    req->release();
  }
  return s == Status::Ok ? 0 : fail("send", buf.size(), s);
}

int recv_check(Peer& p, size_t size, Tag tag, uint64_t seed, Request* req = nullptr,
               std::vector<std::byte>* keep = nullptr) {
  std::vector<std::byte> local;
  std::vector<std::byte>& buf = keep ? *keep : local;
  if (req == nullptr) {
    buf.assign(size, std::byte{0});
    if (p.worker->tag_recv(buf.data(), size, tag, kTagMaskFull, &req) != Status::InProgress)
      return fail("tag_recv", size);
  }
  Status s = p.wait(req);
  RecvInfo info = req->info();
  req->release();
  if (s != Status::Ok) return fail("recv", size, s);
  if (info.length != size || info.tag != tag) return fail("recv info", size);
  size_t bad = check_pattern(buf.data(), size, seed);
  if (bad != SIZE_MAX) {
    std::fprintf(stderr, "data mismatch at offset %zu of %zu\n", bad, size);
    return 1;
  }
  return 0;
}

}  // namespace

TEST_CASE("expected receives of every size") {
  auto parent = [](Peer& p) {
    for (size_t size : test_sizes(p.ep)) {
      std::vector<std::byte> buf(size);
      Request* req = nullptr;
      if (p.worker->tag_recv(buf.data(), size, 7, kTagMaskFull, &req) != Status::InProgress)
        return fail("post", size);
      p.barrier();  // posted before the child sends
      if (recv_check(p, size, 7, size, req, &buf)) return 1;
    }
    return 0;
  };
  auto child = [](Peer& p) {
    for (size_t size : test_sizes(p.ep)) {
      std::vector<std::byte> buf(size);
      fill_pattern(buf.data(), size, size);
      p.barrier();
      if (send_one(p, buf, 7)) return 1;
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}

TEST_CASE("unexpected receives of every size (send first)") {
  auto parent = [](Peer& p) {
    for (size_t size : test_sizes(p.ep)) {
      p.recv_u64();  // the child has sent
      RecvInfo info;
      auto deadline = std::chrono::steady_clock::now() + 30s;
      while (!p.worker->tag_probe(9, kTagMaskFull, &info)) {
        if (std::chrono::steady_clock::now() > deadline) return fail("probe never saw it", size);
        p.worker->progress();
      }
      if (info.length != size) return fail("probe length", size);
      if (recv_check(p, size, 9, size + 1)) return 1;
    }
    return 0;
  };
  auto child = [](Peer& p) {
    for (size_t size : test_sizes(p.ep)) {
      std::vector<std::byte> buf(size);
      fill_pattern(buf.data(), size, size + 1);
      Request* req = nullptr;
      Status s = p.ep->tag_send(buf.data(), size, 9, &req);
      if (is_error(s)) return fail("send", size, s);
      p.send_u64(size);
      if (s == Status::InProgress) {
        s = p.wait(req);
        req->release();
        if (s != Status::Ok) return fail("send wait", size, s);
      }
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}

TEST_CASE("wildcards match in send order across eager and rendezvous") {
  static const size_t sizes[] = {8, 200000, 16, 3 << 20, 0, 9000, 1};
  auto parent = [](Peer& p) {
    p.barrier();
    std::this_thread::sleep_for(20ms);  // let some arrive unexpected, some not
    for (size_t i = 0; i < std::size(sizes); ++i) {
      std::vector<std::byte> buf(4 << 20);
      Request* req = nullptr;
      // Any tag in the 0x5500 group: low byte wildcarded.
      if (p.worker->tag_recv(buf.data(), buf.size(), 0x5500, ~Tag{0xff}, &req) !=
          Status::InProgress)
        return fail("post", i);
      Status s = p.wait(req);
      RecvInfo info = req->info();
      req->release();
      if (s != Status::Ok) return fail("recv", sizes[i], s);
      if (info.tag != (0x5500 | i) || info.length != sizes[i]) return fail("order", i);
      if (check_pattern(buf.data(), sizes[i], i) != SIZE_MAX) return fail("data", sizes[i]);
    }
    // A non-matching tag group stays unexpected.
    RecvInfo info;
    return p.worker->tag_probe(0x6600, ~Tag{0xff}, &info) ? fail("stray match", 0) : 0;
  };
  auto child = [](Peer& p) {
    std::vector<std::vector<std::byte>> bufs;
    std::vector<Request*> reqs;
    p.barrier();
    for (size_t i = 0; i < std::size(sizes); ++i) {
      bufs.emplace_back(sizes[i]);
      fill_pattern(bufs.back().data(), sizes[i], i);
      Request* req = nullptr;
      Status s = p.ep->tag_send(bufs.back().data(), sizes[i], 0x5500 | i, &req);
      if (is_error(s)) return fail("send", sizes[i], s);
      if (s == Status::InProgress) reqs.push_back(req);
    }
    for (Request* r : reqs) {
      if (Status s = p.wait(r); s != Status::Ok) return fail("send wait", 0, s);
      r->release();
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}

TEST_CASE("1000 outstanding non-blocking requests") {
  std::string why;
  if (torus::test_net::sockets_stream_unsafe_here(&why)) {
    MESSAGE("skipped: libfabric sockets provider on this loopback: " << why);
    return;
  }
  constexpr int kN = 1000;
  auto size_of = [](int i) { return static_cast<size_t>((i * 7919) % 20000); };
  auto parent = [&](Peer& p) {
    std::vector<std::vector<std::byte>> bufs(kN);
    std::vector<Request*> reqs(kN);
    for (int i = 0; i < kN; ++i) {
      bufs[i].resize(size_of(i));
      if (p.worker->tag_recv(bufs[i].data(), bufs[i].size(), 1000 + i, kTagMaskFull,
                             &reqs[i]) != Status::InProgress)
        return fail("post", size_of(i));
    }
    p.barrier();
    for (int i = kN - 1; i >= 0; --i)  // completion order must not matter
      if (recv_check(p, size_of(i), 1000 + i, i, reqs[i], &bufs[i])) return 1;
    return 0;
  };
  auto child = [&](Peer& p) {
    std::vector<std::vector<std::byte>> bufs(kN);
    std::vector<Request*> reqs;
    p.barrier();
    for (int i = 0; i < kN; ++i) {
      bufs[i].resize(size_of(i));
      fill_pattern(bufs[i].data(), bufs[i].size(), i);
      Request* req = nullptr;
      Status s = p.ep->tag_send(bufs[i].data(), bufs[i].size(), 1000 + i, &req);
      if (is_error(s)) return fail("send", size_of(i), s);
      if (s == Status::InProgress) reqs.push_back(req);
    }
    for (Request* r : reqs) {
      if (Status s = p.wait(r); s != Status::Ok) return fail("send wait", 0, s);
      r->release();
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}

TEST_CASE("synchronous sends complete only after the match") {
  auto parent = [](Peer& p) {
    for (size_t size : {size_t{8}, size_t{20000}, size_t{1} << 20}) {
      p.recv_u64();  // the child checked its ssend is still pending
      if (recv_check(p, size, 3, size)) return 1;
    }
    return 0;
  };
  auto child = [](Peer& p) {
    for (size_t size : {size_t{8}, size_t{20000}, size_t{1} << 20}) {
      std::vector<std::byte> buf(size);
      fill_pattern(buf.data(), size, size);
      Request* req = nullptr;
      SendParams sp;
      sp.sync = true;
      Status s = p.ep->tag_send(buf.data(), size, 3, &req, sp);
      if (s != Status::InProgress) return fail("ssend completed before any match", size, s);
      auto until = std::chrono::steady_clock::now() + 50ms;
      while (std::chrono::steady_clock::now() < until) p.worker->progress();
      if (req->completed()) return fail("ssend completed without a receive", size);
      p.send_u64(size);
      if (p.wait(req) != Status::Ok) return fail("ssend", size, req->status());
      req->release();
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}

TEST_CASE("truncation and cancel") {
  auto parent = [](Peer& p) {
    // A receive that is never matched can be canceled.
    std::vector<std::byte> small(16);
    Request* req = nullptr;
    REQUIRE(p.worker->tag_recv(small.data(), small.size(), 42, kTagMaskFull, &req) ==
            Status::InProgress);
    if (p.worker->cancel(req) != Status::Ok || req->status() != Status::Canceled)
      return fail("cancel", 0);
    req->release();
    p.barrier();
    // Messages longer than the buffer: BufferTooSmall, the full length reported.
    for (size_t size : {size_t{100}, size_t{50000}, size_t{2} << 20}) {
      if (p.worker->tag_recv(small.data(), small.size(), 5, kTagMaskFull, &req) !=
          Status::InProgress)
        return fail("post", size);
      Status s = p.wait(req);
      RecvInfo info = req->info();
      req->release();
      if (s != Status::BufferTooSmall || info.length != size) return fail("truncate", size, s);
      if (check_pattern(small.data(), small.size(), size) != SIZE_MAX) return fail("prefix", size);
    }
    return 0;
  };
  auto child = [](Peer& p) {
    p.barrier();
    for (size_t size : {size_t{100}, size_t{50000}, size_t{2} << 20}) {
      std::vector<std::byte> buf(size);
      fill_pattern(buf.data(), size, size);
      if (send_one(p, buf, 5)) return 1;
    }
    return 0;
  };
  CHECK(run_pair(parent, child) == "");
}
