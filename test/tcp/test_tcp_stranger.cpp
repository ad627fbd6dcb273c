// Real sockets: a worker keeps serving its real peer, in order and without loss, while
// strangers connect to its port with garbage, wrong keys, wrong versions, truncated and
// malformed frames; a peer with the wrong job key is refused; simultaneous dials end in one
// connection.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_iface.h"
#include "transports/tcp/tcp_netif.h"
#include "transports/tcp/tcp_wire.h"

using namespace torus;
using namespace torus::tcp;
using namespace std::chrono_literals;

namespace {

constexpr tl::AmId kId = 3;

struct Inbox {
  std::vector<uint64_t> seqs;
};

void on_am(void* arg, const void* data, size_t len) {
  uint64_t v = 0;
  if (len == sizeof(v)) std::memcpy(&v, data, sizeof(v));
  static_cast<Inbox*>(arg)->seqs.push_back(len == sizeof(v) ? v : ~0ull);
}

struct Errors {
  int count = 0;
  Status last = Status::Ok;
};

void on_error(void* arg, tl::Endpoint*, Status s) {
  auto* e = static_cast<Errors*>(arg);
  ++e->count;
  e->last = s;
}

std::unique_ptr<TcpIface> open_iface(const std::string& key) {
  tl::IfaceParams p;
  p.worker_uid = random_u64();
  p.job_id = "tcptest";
  Settings s;
  s.ifaces = "lo";
  s.job_key = key;
  auto r = TcpIface::open(p, s);
  REQUIRE(r.ok());
  return std::move(r.value());
}

uint16_t loopback_port(const tl::Iface& i) {
  IfaceAddress a;
  REQUIRE(parse_address(i.address(), &a, nullptr));
  for (const NetAddr& n : a.listen)
    if (n.family == 4 && n.is_loopback()) return n.port;
  FAIL("no IPv4 loopback listener");
  return 0;
}

// One worker (a) receiving, one (b) sending to it: the real conversation.
struct Conversation {
  std::unique_ptr<TcpIface> a, b;
  std::unique_ptr<tl::Endpoint> ba;
  Inbox inbox;
  Errors errors;
  uint64_t next = 0;

  explicit Conversation(const std::string& key_a = "k1", const std::string& key_b = "k1")
      : a(open_iface(key_a)), b(open_iface(key_b)) {
    a->set_am_handler(kId, on_am, &inbox);
    b->set_error_handler(on_error, &errors);
    auto ep = b->connect(a->address());
    REQUIRE(ep.ok());
    ba = std::move(ep.value());
  }
  void pump() {
    a->progress();
    b->progress();
  }
  // Sends `n` numbered messages, absorbing back-pressure; false on an error.
  Status send(int n) {
    for (int i = 0; i < n; ++i) {
      const auto deadline = std::chrono::steady_clock::now() + 20s;
      for (;;) {
        const uint64_t v = next;
        Status s = ba->am_short(kId, {}, std::as_bytes(std::span(&v, 1)));
        if (s == Status::Ok) break;
        if (s != Status::NoResource) return s;
        if (std::chrono::steady_clock::now() > deadline) return Status::Timeout;
        pump();
      }
      ++next;
    }
    return Status::Ok;
  }
  // Every message sent so far arrived once, in order.
  bool all_arrived() {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (inbox.seqs.size() < next && std::chrono::steady_clock::now() < deadline) pump();
    if (inbox.seqs.size() != next) return false;
    for (uint64_t i = 0; i < next; ++i)
      if (inbox.seqs[i] != i) return false;
    return true;
  }
};

// A stranger's blocking socket to the worker's port.
struct Stranger {
  int fd = -1;
  explicit Stranger(uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof(sin)) == 0);
  }
  ~Stranger() { ::close(fd); }
  void put(const void* p, size_t n) { REQUIRE(::send(fd, p, n, MSG_NOSIGNAL) == ssize_t(n)); }
  // Reads exactly n bytes while the conversation progresses; false on EOF/timeout.
  bool get(Conversation& c, void* p, size_t n) {
    size_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (got < n && std::chrono::steady_clock::now() < deadline) {
      c.pump();
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, 0) != 1) continue;
      const ssize_t r = ::recv(fd, static_cast<char*>(p) + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return got == n;
  }
  // The worker closed this connection (EOF or reset) within the time limit.
  bool closed_by_worker(Conversation& c) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      c.pump();
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, 0) != 1) continue;
      char buf[256];
      if (::recv(fd, buf, sizeof(buf), 0) <= 0) return true;
    }
    return false;
  }
  Challenge challenge(Conversation& c) {
    Challenge ch{};
    REQUIRE(get(c, &ch, sizeof(ch)));
    REQUIRE(ch.magic == kMagic);
    return ch;
  }
  // A full handshake as a torus peer holding `key`; true when welcomed.
  bool handshake(Conversation& c, const std::string& key, uint16_t version = kVersion) {
    const Challenge ch = challenge(c);
    const uint64_t uid = random_u64(), nonce = random_u64();
    Hello h{kMagic, version, 0, uid, ch.acceptor_uid, nonce, 0};
    h.mac = hello_mac(derive_key(key), ch.nonce, uid, ch.acceptor_uid, nonce);
    put(&h, sizeof(h));
    Welcome w{};
    return get(c, &w, sizeof(w)) && w.verdict == static_cast<uint8_t>(Verdict::Accept);
  }
};

size_t count_socket_fds() {
  size_t n = 0;
  DIR* d = ::opendir("/proc/self/fd");
  while (dirent* e = ::readdir(d)) {
    char target[64] = {};
    const std::string path = std::string("/proc/self/fd/") + e->d_name;
    if (::readlink(path.c_str(), target, sizeof(target) - 1) > 0 &&
        std::strncmp(target, "socket:", 7) == 0)
      ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace

TEST_CASE("tcp: strangers on the port are dropped; the real peer loses nothing") {
  Conversation c;
  REQUIRE(c.send(100) == Status::Ok);
  const uint16_t port = loopback_port(*c.a);

  SUBCASE("garbage") {
    Stranger s(port);
    (void)s.challenge(c);
    std::vector<uint8_t> junk(200);
    std::mt19937 gen(1);
    for (auto& b : junk) b = static_cast<uint8_t>(gen());
    s.put(junk.data(), junk.size());
    CHECK(s.closed_by_worker(c));
  }
  SUBCASE("a wrong job key") {
    Stranger s(port);
    CHECK_FALSE(s.handshake(c, "not-the-key"));
    CHECK(s.closed_by_worker(c));
  }
  SUBCASE("a wrong wire version") {
    Stranger s(port);
    CHECK_FALSE(s.handshake(c, "k1", kVersion + 1));
    CHECK(s.closed_by_worker(c));
  }
  SUBCASE("a truncated frame header, then the stranger leaves") {
    Stranger s(port);
    REQUIRE(s.handshake(c, "k1"));
    const uint8_t part[3] = {1, 0, 0};
    s.put(part, sizeof(part));
    REQUIRE(c.send(10) == Status::Ok);  // the worker serves others meanwhile
  }
  SUBCASE("a malformed frame after a good handshake") {
    Stranger s(port);
    REQUIRE(s.handshake(c, "k1"));
    const FrameHeader bad{9, 0, 0, 0};
    s.put(&bad, sizeof(bad));
    CHECK(s.closed_by_worker(c));
  }
  SUBCASE("an active message longer than allowed") {
    Stranger s(port);
    REQUIRE(s.handshake(c, "k1"));
    const FrameHeader big{1, kId, 0, static_cast<uint32_t>(kMaxAmPayload + 1)};
    s.put(&big, sizeof(big));
    CHECK(s.closed_by_worker(c));
  }
  SUBCASE("a get with a forged key is refused, never served") {
    Stranger s(port);
    REQUIRE(s.handshake(c, "k1"));
    uint64_t secret = 0x1234;
    struct {
      FrameHeader h;
      GetReqBody b;
    } __attribute__((packed)) req{{2, 0, 0, sizeof(GetReqBody)}, {77, reinterpret_cast<uint64_t>(&secret), 8, {}}};
    s.put(&req, sizeof(req));
    struct {
      FrameHeader h;
      RespBody r;
    } __attribute__((packed)) resp{};
    REQUIRE(s.get(c, &resp, sizeof(resp)));
    CHECK(resp.h.type == static_cast<uint8_t>(FrameType::GetResp));
    CHECK(resp.h.length == sizeof(RespBody));  // no data follows
    CHECK(resp.r.op_id == 77);
    CHECK(static_cast<Status>(resp.r.status) == Status::AccessDenied);
  }
  REQUIRE(c.send(100) == Status::Ok);
  CHECK(c.all_arrived());
  CHECK(c.errors.count == 0);
}

TEST_CASE("tcp: a peer with the wrong job key is refused with an error, not served") {
  Conversation c("k1", "k2");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  Status s = Status::Ok;
  const uint64_t v = 1;
  while (std::chrono::steady_clock::now() < deadline) {
    s = c.ba->am_short(kId, {}, std::as_bytes(std::span(&v, 1)));
    if (is_error(s)) break;
    c.pump();
  }
  CHECK(is_error(s));
  CHECK(c.errors.count == 1);
  CHECK(c.inbox.seqs.empty());
}

TEST_CASE("tcp: simultaneous dials end in one connection, messages in order both ways") {
  const size_t base = count_socket_fds();
  Conversation c;
  Inbox back;
  c.b->set_am_handler(kId, on_am, &back);
  auto ab = c.a->connect(c.b->address());
  REQUIRE(ab.ok());
  const size_t listening = count_socket_fds() - base;
  // Both sides dial before either progresses.
  const uint64_t zero = 0;
  CHECK(c.ba->am_short(kId, {}, std::as_bytes(std::span(&zero, 1))) == Status::NoResource);
  CHECK(ab.value()->am_short(kId, {}, std::as_bytes(std::span(&zero, 1))) ==
        Status::NoResource);
  REQUIRE(c.send(50) == Status::Ok);
  uint64_t sent_back = 0;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (sent_back < 50 && std::chrono::steady_clock::now() < deadline) {
    const Status s = ab.value()->am_short(kId, {}, std::as_bytes(std::span(&sent_back, 1)));
    if (s == Status::Ok) ++sent_back;
    else REQUIRE(s == Status::NoResource);
    c.pump();
  }
  CHECK(c.all_arrived());
  while (back.seqs.size() < 50 && std::chrono::steady_clock::now() < deadline) c.pump();
  REQUIRE(back.seqs.size() == 50);
  for (uint64_t i = 0; i < 50; ++i) CHECK(back.seqs[i] == i);
  for (int i = 0; i < 1000; ++i) c.pump();  // let the losing socket close
  CHECK(count_socket_fds() - base == listening + 2);  // both ends of one connection
  CHECK(c.errors.count == 0);
}
