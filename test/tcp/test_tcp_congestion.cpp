// TORUS_TCP_CONGESTION: a connection between two ends on this host is recognised as local,
// and its sockets get reno under auto (no pacing on loopback), keep the system's algorithm
// under "system", and still carry messages when the name asked for does not exist.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "transports/tcp/tcp_auth.h"
#include "transports/tcp/tcp_iface.h"
#include "transports/tcp/tcp_netif.h"

using namespace torus;
using namespace torus::tcp;
using namespace std::chrono_literals;

namespace {

std::string congestion_of(int fd) {
  char name[32] = {};
  socklen_t len = sizeof(name);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) return "";
  return std::string(name);
}

// The congestion algorithm of every connected TCP socket of this process.
std::vector<std::string> connected_congestion() {
  std::vector<std::string> out;
  DIR* d = ::opendir("/proc/self/fd");
  REQUIRE(d != nullptr);
  while (dirent* e = ::readdir(d)) {
    const int fd = std::atoi(e->d_name);
    struct stat st{};
    if (fd <= 2 || ::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    const std::string cc = congestion_of(fd);
    if (cc.empty() || ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) continue;
    out.push_back(cc);
  }
  ::closedir(d);
  return out;
}

std::string system_default() {
  std::ifstream f("/proc/sys/net/ipv4/tcp_congestion_control");
  std::string s;
  f >> s;
  return s;
}

struct Got {
  int n = 0;
};
void on_am(void* arg, const void*, size_t) { ++static_cast<Got*>(arg)->n; }

// Two ifaces on lo with `congestion`; a message each way; returns the sockets' algorithms
// while the connections are up.
std::vector<std::string> exchange(const char* congestion) {
  Settings s;
  s.ifaces = "lo";
  s.job_key = "congestion";
  s.congestion = congestion;
  tl::IfaceParams p;
  p.job_id = "tcpcc";
  p.worker_uid = random_u64();
  auto a = TcpIface::open(p, s);
  p.worker_uid = random_u64();
  auto b = TcpIface::open(p, s);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  Got ga, gb;
  a.value()->set_am_handler(3, on_am, &ga);
  b.value()->set_am_handler(3, on_am, &gb);
  auto ab = a.value()->connect(b.value()->address());
  auto ba = b.value()->connect(a.value()->address());
  REQUIRE(ab.ok());
  REQUIRE(ba.ok());
  const std::byte hello[4] = {};
  bool sent_ab = false, sent_ba = false;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (ga.n < 1 || gb.n < 1) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    // NoResource until the connection is up.
    if (!sent_ab) sent_ab = ab.value()->am_short(3, {}, hello) == Status::Ok;
    if (!sent_ba) sent_ba = ba.value()->am_short(3, {}, hello) == Status::Ok;
    a.value()->progress();
    b.value()->progress();
  }
  return connected_congestion();
}

}  // namespace

TEST_CASE("tcp: a loopback connection is local from both ends; an unconnected socket is not") {
  const int l = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(l >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  REQUIRE(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  REQUIRE(::listen(l, 1) == 0);
  REQUIRE(::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  const int c = ::socket(AF_INET, SOCK_STREAM, 0);
  CHECK_FALSE(connection_is_local(c));
  REQUIRE(::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
  const int s = ::accept(l, nullptr, nullptr);
  REQUIRE(s >= 0);
  CHECK(connection_is_local(c));
  CHECK(connection_is_local(s));
  ::close(s);
  ::close(c);
  ::close(l);
}

TEST_CASE("tcp: TORUS_TCP_CONGESTION sets the sockets' algorithm, a bad name only warns") {
  const std::string sys = system_default();
  SUBCASE("auto: reno within the host") {
    const auto got = exchange("auto");
    REQUIRE(!got.empty());
    for (const auto& cc : got) CHECK(cc == "reno");
  }
  SUBCASE("system: untouched") {
    const auto got = exchange("system");
    REQUIRE(!got.empty());
    for (const auto& cc : got) CHECK(cc == sys);
  }
  SUBCASE("a name the kernel does not have: the system's, messages still flow") {
    const auto got = exchange("no-such-algorithm");
    REQUIRE(!got.empty());
    for (const auto& cc : got) CHECK(cc == sys);
  }
}
