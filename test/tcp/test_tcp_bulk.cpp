// Bulk transfers over real loopback sockets: many large gets and puts in flight in both
// directions at once, interleaved with active messages of every size, land byte for byte
// (get answers are read straight into their destination, past a few buffered bytes); the
// 1 MiB gets and puts are striped over the main and one bulk connection.
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_iface.h"

using namespace torus;
using namespace torus::tcp;
using namespace std::chrono_literals;

namespace {

constexpr tl::AmId kId = 5;
constexpr size_t kPiece = 1 << 20;

std::unique_ptr<TcpIface> open_bulk_iface(bool stripe_local = true) {
  tl::IfaceParams p;
  p.worker_uid = random_u64();
  p.job_id = "tcpbulk";
  Settings s;
  s.ifaces = "lo";
  s.job_key = "bulk";
  s.stripe_local = stripe_local;  // lo is within the host: true stripes anyway, to test it
  auto r = TcpIface::open(p, s);
  REQUIRE(r.ok());
  return std::move(r.value());
}

// Byte i of the region a worker (tag) exposes, and of what it puts.
std::byte pattern(uint8_t tag, size_t i) {
  return static_cast<std::byte>((i * 131 + (i >> 12) * 7 + tag * 29) & 0xff);
}

// Active messages: the first 8 bytes are a sequence number, the rest a pattern of it.
struct Inbox {
  uint64_t next = 0;
  bool bad = false;
};

void on_am(void* arg, const void* data, size_t len) {
  auto* in = static_cast<Inbox*>(arg);
  const auto* p = static_cast<const std::byte*>(data);
  uint64_t seq = ~0ull;
  if (len >= sizeof(seq)) std::memcpy(&seq, p, sizeof(seq));
  if (seq != in->next) in->bad = true;
  for (size_t i = sizeof(seq); i < len && !in->bad; ++i)
    if (p[i] != pattern(static_cast<uint8_t>(seq), i)) in->bad = true;
  ++in->next;
}

struct Done : tl::Completion {
  int* count = nullptr;
  Status status = Status::InProgress;
};

void on_done(tl::Completion* c, Status s) {
  auto* d = static_cast<Done*>(c);
  d->status = s;
  ++*d->count;
}

// One side: its iface, its endpoint to the other side, the region it exposes, where its
// gets land, and the AMs it receives.
struct Side {
  std::unique_ptr<TcpIface> iface;
  std::unique_ptr<tl::Endpoint> ep;
  std::vector<std::byte> exposed, landed;
  std::unique_ptr<tl::MemRegion> mr;
  std::vector<std::byte> rkey;
  Inbox inbox;
  std::vector<Done> ops;
  int completed = 0;
  uint64_t am_seq = 0;
};

void pump(Side& a, Side& b) {
  a.iface->progress();
  b.iface->progress();
}

template <typename Cond>
bool pump_until(Side& a, Side& b, Cond cond) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    pump(a, b);
  }
  return true;
}

// Sends one AM of `len` bytes (sequence number + pattern), absorbing back-pressure.
void send_am(Side& from, Side& to, size_t len) {
  std::vector<std::byte> msg(len);
  const uint64_t seq = from.am_seq;
  std::memcpy(msg.data(), &seq, sizeof(seq));
  for (size_t i = sizeof(seq); i < len; ++i) msg[i] = pattern(static_cast<uint8_t>(seq), i);
  struct Pack {
    const std::vector<std::byte>* m;
  } pk{&msg};
  auto pack = [](void* dst, void* arg) -> size_t {
    const auto* m = static_cast<Pack*>(arg)->m;
    std::memcpy(dst, m->data(), m->size());
    return m->size();
  };
  Status s;
  REQUIRE(pump_until(from, to, [&] {
    s = from.ep->am_bcopy(kId, pack, &pk);
    return s != Status::NoResource;
  }));
  REQUIRE(s == Status::Ok);
  ++from.am_seq;
}

void expose(Side& s, uint8_t tag, size_t bytes) {
  s.exposed.resize(bytes);
  for (size_t i = 0; i < bytes; ++i) s.exposed[i] = pattern(tag, i);
  s.landed.assign(bytes, std::byte{0});
  auto mr = s.iface->mem_register(s.exposed.data(), bytes, tl::kAccessRead | tl::kAccessWrite);
  REQUIRE(mr.ok());
  s.mr = std::move(mr.value());
  s.rkey.resize(s.iface->attributes().rkey_size);
  s.mr->pack_rkey(s.rkey);
}

void connect_pair(Side& a, Side& b) {
  a.iface->set_am_handler(kId, on_am, &a.inbox);
  b.iface->set_am_handler(kId, on_am, &b.inbox);
  auto ab = a.iface->connect(b.iface->address());
  auto ba = b.iface->connect(a.iface->address());
  REQUIRE(ab.ok());
  REQUIRE(ba.ok());
  a.ep = std::move(ab.value());
  b.ep = std::move(ba.value());
}

}  // namespace

TEST_CASE("many large gets and puts in flight both ways, among active messages, land intact") {
  constexpr size_t kPieces = 12;  // per direction, all issued at once
  Side a, b;
  a.iface = open_bulk_iface();
  b.iface = open_bulk_iface();
  connect_pair(a, b);
  expose(a, 1, kPieces * kPiece);
  expose(b, 2, kPieces * kPiece);
  // Each side: gets of every piece of the other's region, then puts of its own pattern
  // into the other's second half after the gets are answered (puts overwrite `exposed`).
  for (Side* s : {&a, &b}) s->ops.resize(kPieces);
  // AMs of every size go between the get requests, so answers and AMs interleave.
  const size_t am_sizes[] = {8, 100, 4096, 5000, 65536, 8};
  for (size_t k = 0; k < kPieces; ++k) {
    for (auto [from, to] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      Done& d = from->ops[k];
      d.func = on_done;
      d.count = &from->completed;
      Status s;
      REQUIRE(pump_until(a, b, [&] {
        s = from->ep->get_zcopy({from->landed.data() + k * kPiece, kPiece},
                                reinterpret_cast<uint64_t>(to->exposed.data()) + k * kPiece,
                                to->rkey, &d);
        return s != Status::NoResource;
      }));
      REQUIRE(s == Status::InProgress);
      send_am(*from, *to, am_sizes[k % std::size(am_sizes)]);
    }
  }
  REQUIRE(pump_until(a, b, [&] {
    return a.completed == static_cast<int>(kPieces) && b.completed == static_cast<int>(kPieces);
  }));
  for (Side* s : {&a, &b})
    for (const Done& d : s->ops) CHECK(d.status == Status::Ok);
  CHECK(std::memcmp(a.landed.data(), b.exposed.data(), a.landed.size()) == 0);
  CHECK(std::memcmp(b.landed.data(), a.exposed.data(), b.landed.size()) == 0);

  // Puts both ways: each writes what it fetched back into the other's region, shifted by
  // half a piece, while AMs keep flowing.
  for (Side* s : {&a, &b}) {
    s->completed = 0;
    s->ops.assign(kPieces - 1, Done{});
  }
  for (size_t k = 0; k + 1 < kPieces; ++k) {
    for (auto [from, to] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      Done& d = from->ops[k];
      d.func = on_done;
      d.count = &from->completed;
      Status s;
      REQUIRE(pump_until(a, b, [&] {
        s = from->ep->put_zcopy({from->landed.data() + k * kPiece, kPiece},
                                reinterpret_cast<uint64_t>(to->exposed.data()) + k * kPiece +
                                    kPiece / 2,
                                to->rkey, &d);
        return s != Status::NoResource;
      }));
      REQUIRE(s == Status::InProgress);
      send_am(*from, *to, am_sizes[(k + 3) % std::size(am_sizes)]);
    }
  }
  REQUIRE(pump_until(a, b, [&] {
    return a.completed == static_cast<int>(kPieces - 1) &&
           b.completed == static_cast<int>(kPieces - 1);
  }));
  for (Side* s : {&a, &b})
    for (const Done& d : s->ops) CHECK(d.status == Status::Ok);
  // b's region now holds, from half a piece on, what a fetched from it: its own pattern.
  for (Side* s : {&a, &b}) {
    const uint8_t tag = s == &a ? 1 : 2;
    size_t bad = 0;
    for (size_t i = kPiece / 2; i < (kPieces - 1) * kPiece + kPiece / 2; ++i)
      if (s->exposed[i] != pattern(tag, i - kPiece / 2)) ++bad;
    CHECK(bad == 0);
  }
  REQUIRE(pump_until(a, b, [&] {
    return a.inbox.next == b.am_seq && b.inbox.next == a.am_seq;
  }));
  CHECK_FALSE(a.inbox.bad);
  CHECK_FALSE(b.inbox.bad);
  // Both sides dialed at once, main and bulk connections alike: one of each survives.
  CHECK(pump_until(a, b, [&] {
    return a.iface->ready_connections() == 2 && b.iface->ready_connections() == 2;
  }));
}

TEST_CASE("within the host a large put stays on the main connection unless asked to stripe") {
  Side a, b;
  a.iface = open_bulk_iface(false);
  b.iface = open_bulk_iface(false);
  connect_pair(a, b);
  expose(a, 1, 4 * kPiece);
  expose(b, 2, 4 * kPiece);
  send_am(a, b, 8);  // the main connection first: a put made while dialing goes whole anyway
  REQUIRE(pump_until(a, b, [&] { return b.inbox.next == 1; }));
  a.ops.resize(1);
  Done& d = a.ops[0];
  d.func = on_done;
  d.count = &a.completed;
  Status s;
  REQUIRE(pump_until(a, b, [&] {
    s = a.ep->put_zcopy({a.exposed.data(), 4 * kPiece},
                        reinterpret_cast<uint64_t>(b.exposed.data()), b.rkey, &d);
    return s != Status::NoResource;
  }));
  REQUIRE(s == Status::InProgress);
  REQUIRE(pump_until(a, b, [&] { return a.completed == 1; }));
  CHECK(d.status == Status::Ok);
  CHECK(std::memcmp(a.exposed.data(), b.exposed.data(), 4 * kPiece) == 0);
  // No bulk connection was dialed: one connection on each side, and it stays so (a bulk one
  // would be up well within 300 ms; the listener is polled every 1024th progress).
  const auto until = std::chrono::steady_clock::now() + 300ms;
  while (std::chrono::steady_clock::now() < until) pump(a, b);
  CHECK(a.iface->ready_connections() == 1);
  CHECK(b.iface->ready_connections() == 1);
}
