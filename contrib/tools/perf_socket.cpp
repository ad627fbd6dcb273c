// torus_perf's bootstrap TCP connection: connect with retries, accept one client,
// length-prefixed messages with deadlines, and peer-death detection.
#include "contrib/tools/perf_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "contrib/tools/perf_options.h"

namespace torus::perf {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMaxMsg = 1u << 24;

std::string errno_text(int e) { return std::string(std::strerror(e)); }

int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  if (left.count() <= 0) return 0;
  return left.count() > 1000 ? 1000 : static_cast<int>(left.count());
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

BootstrapSocket BootstrapSocket::connect_to(const std::string& host, uint16_t port,
                                            std::chrono::seconds connect_timeout) {
  const std::string name = host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
  if (rc != 0) fail("cannot resolve " + name + ": " + gai_strerror(rc));
  const auto deadline = Clock::now() + connect_timeout;
  int last_errno = 0;
  while (true) {
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) {
        last_errno = errno;
        continue;
      }
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        freeaddrinfo(res);
        set_nodelay(fd);
        return BootstrapSocket(fd, name);
      }
      last_errno = errno;
      close(fd);
    }
    // Refused: the server may not be listening yet. Anything else fails at once.
    if (last_errno != ECONNREFUSED || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  freeaddrinfo(res);
  fail("cannot connect to torus_perf server at " + name + ": " + errno_text(last_errno) +
       " (is `torus_perf -p " + std::to_string(port) + "` running there?)");
}

BootstrapSocket BootstrapSocket::accept_one(uint16_t port, std::chrono::seconds accept_timeout,
                                            bool announce) {
  const std::string where = "port " + std::to_string(port);
  int lfd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool v6 = lfd >= 0;
  if (!v6) lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0) fail("socket() for the bootstrap listener failed: " + errno_text(errno));
  int one = 1, zero = 0;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int brc;
  if (v6) {
    setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));  // also IPv4
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(port);
    brc = bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  } else {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons(port);
    brc = bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  }
  if (brc != 0 || listen(lfd, 1) != 0) {
    int e = errno;
    close(lfd);
    fail("cannot listen on " + where + ": " + errno_text(e));
  }
  if (announce) {
    std::printf("torus_perf server: waiting for a client on %s\n", where.c_str());
    std::fflush(stdout);
  }
  const bool bounded = accept_timeout.count() > 0;
  const auto deadline = Clock::now() + accept_timeout;
  while (true) {
    pollfd p{lfd, POLLIN, 0};
    int r = poll(&p, 1, bounded ? ms_left(deadline) : -1);
    if (r < 0 && errno != EINTR) {
      int e = errno;
      close(lfd);
      fail("poll on the listener (" + where + ") failed: " + errno_text(e));
    }
    if (r > 0) break;
    if (bounded && Clock::now() >= deadline) {
      close(lfd);
      fail("no client connected to " + where + " within " +
           std::to_string(accept_timeout.count()) + " s");
    }
  }
  sockaddr_storage peer{};
  socklen_t plen = sizeof(peer);
  int fd = accept4(lfd, reinterpret_cast<sockaddr*>(&peer), &plen, SOCK_CLOEXEC);
  int e = errno;
  close(lfd);
  if (fd < 0) fail("accept on " + where + " failed: " + errno_text(e));
  char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
  getnameinfo(reinterpret_cast<sockaddr*>(&peer), plen, host, sizeof(host), serv, sizeof(serv),
              NI_NUMERICHOST | NI_NUMERICSERV);
  set_nodelay(fd);
  return BootstrapSocket(fd, std::string(host) + ":" + serv);
}

BootstrapSocket::BootstrapSocket(BootstrapSocket&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), peer_(std::move(o.peer_)) {}

BootstrapSocket::~BootstrapSocket() {
  if (fd_ >= 0) close(fd_);
}

void BootstrapSocket::send_msg(std::span<const std::byte> data) {
  if (data.size() > kMaxMsg) fail("bootstrap message too long");
  uint32_t n = static_cast<uint32_t>(data.size());
  std::byte hdr[4];
  for (int i = 0; i < 4; ++i) hdr[i] = static_cast<std::byte>(n >> (8 * i));
  auto put = [&](const std::byte* p, size_t len) {
    while (len > 0) {
      ssize_t w = send(fd_, p, len, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
        fail("bootstrap connection to " + peer_ + " failed on send: " + errno_text(errno) +
             " (the peer died?)");
      p += w;
      len -= static_cast<size_t>(w);
    }
  };
  put(hdr, 4);
  put(data.data(), data.size());
}

void BootstrapSocket::send_text(std::string_view text) {
  send_msg({reinterpret_cast<const std::byte*>(text.data()), text.size()});
}

void BootstrapSocket::read_exact(std::byte* p, size_t n, Clock::time_point deadline) {
  while (n > 0) {
    pollfd pf{fd_, POLLIN, 0};
    int r = poll(&pf, 1, ms_left(deadline));
    if (r < 0 && errno != EINTR)
      fail("poll on the bootstrap connection to " + peer_ + " failed: " + errno_text(errno));
    if (r <= 0) {
      if (Clock::now() >= deadline)
        fail("timed out waiting for the peer at " + peer_ + " on the bootstrap connection");
      continue;
    }
    ssize_t got = recv(fd_, p, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      fail("bootstrap connection to " + peer_ + " failed on receive: " + errno_text(errno));
    if (got == 0)
      fail("the peer at " + peer_ + " closed the bootstrap connection (it exited or died)");
    p += got;
    n -= static_cast<size_t>(got);
  }
}

std::vector<std::byte> BootstrapSocket::recv_msg(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::byte hdr[4];
  read_exact(hdr, 4, deadline);
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<uint32_t>(hdr[i]) << (8 * i);
  if (n > kMaxMsg)
    fail("bad bootstrap message from " + peer_ + " (length " + std::to_string(n) +
         "): is it a torus_perf of the same version?");
  std::vector<std::byte> v(n);
  read_exact(v.data(), n, deadline);
  return v;
}

std::string BootstrapSocket::recv_text(std::chrono::milliseconds timeout) {
  auto v = recv_msg(timeout);
  return std::string(reinterpret_cast<const char*>(v.data()), v.size());
}

std::string BootstrapSocket::expect(std::string_view prefix, std::chrono::milliseconds timeout) {
  std::string t = recv_text(timeout);
  if (t.compare(0, prefix.size(), prefix) != 0)
    fail("unexpected bootstrap message from " + peer_ + ": wanted '" + std::string(prefix) +
         "...', got '" + t.substr(0, 120) + "'");
  return t.substr(prefix.size());
}

bool BootstrapSocket::peer_alive() {
  pollfd pf{fd_, POLLIN, 0};
  int r = poll(&pf, 1, 0);
  if (r <= 0) return true;
  if (pf.revents & (POLLERR | POLLNVAL)) return false;
  char c;
  ssize_t got = recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got > 0) return true;  // a message is waiting: the peer is ahead of us, not dead
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
  return false;
}

}  // namespace torus::perf
