// Blocking I/O on the PMI server's stream, with EOF and errno turned into messages.
#include "mpi_shim/bootstrap/pmi_conn.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>

namespace torus::boot {
namespace {

// No PMI response is near this; a longer "line" means the peer is not a PMI server.
constexpr size_t kMaxLine = 1 << 20;

Error sys_error(const std::string& origin, const char* call, int err) {
  return make_error(Status::IoError, std::string(call) + " on the PMI connection (" + origin +
                                         "): " + std::strerror(err));
}

}  // namespace

Result<std::unique_ptr<PmiConn>> PmiConn::adopt_fd(std::string_view fd_text, std::string origin) {
  int fd = -1;
  auto [ptr, ec] = std::from_chars(fd_text.data(), fd_text.data() + fd_text.size(), fd);
  if (fd_text.empty() || ec != std::errc() || ptr != fd_text.data() + fd_text.size() || fd < 0)
    return make_error(Status::InvalidParam,
                      origin + ": '" + std::string(fd_text) + "' is not a file descriptor number");
  int flags = ::fcntl(fd, F_GETFD);
  if (flags < 0)
    return make_error(Status::InvalidParam, origin +
                                                " is not an open descriptor in this "
                                                "process: " +
                                                std::strerror(errno));
  // Programs the rank starts must not inherit (and hold open) the launcher's stream.
  (void)::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  return std::make_unique<PmiConn>(fd, std::move(origin));
}

Result<std::unique_ptr<PmiConn>> PmiConn::connect_port(std::string_view host_port) {
  const std::string origin = "PMI_PORT=" + std::string(host_port);
  size_t colon = host_port.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == host_port.size())
    return make_error(Status::InvalidParam, origin + " is not host:port");
  std::string host(host_port.substr(0, colon));
  std::string port(host_port.substr(colon + 1));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0)
    return make_error(Status::Unreachable,
                      origin + ": cannot resolve '" + host + "': " + ::gai_strerror(rc));
  std::string last_error = "no address";
  int fd = -1;
  for (addrinfo* ai = list; ai; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_error = std::string("socket: ") + std::strerror(errno);
      continue;
    }
    int r;
    do r = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    while (r != 0 && errno == EINTR);
    if (r == 0) break;
    last_error = std::string("connect: ") + std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(list);
  if (fd < 0) return make_error(Status::Unreachable, origin + ": " + last_error);
  int one = 1;
  // Every PMI exchange is a small request waiting for its answer.
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return std::make_unique<PmiConn>(fd, origin);
}

PmiConn::~PmiConn() {
  if (fd_ >= 0) ::close(fd_);
}

Outcome PmiConn::write_all(std::string_view data) {
  while (!data.empty()) {
    // MSG_NOSIGNAL: a launcher that died must give an error here, not SIGPIPE.
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE || errno == ECONNRESET)
        return make_error(Status::ConnectionReset, "the PMI server closed the connection (" +
                                                       origin_ + "): the launcher is gone");
      return sys_error(origin_, "send", errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return success();
}

Outcome PmiConn::fill() {
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fd_, chunk, sizeof(chunk));
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      return success();
    }
    if (n == 0 || errno == ECONNRESET)
      return make_error(Status::ConnectionReset,
                        "the PMI server closed the connection (" + origin_ +
                            ") before answering: the launcher is gone or refused this process");
    if (errno != EINTR) return sys_error(origin_, "read", errno);
  }
}

Result<std::string> PmiConn::read_line() {
  size_t scanned = 0;
  for (;;) {
    size_t nl = buf_.find('\n', scanned);
    if (nl != std::string::npos) {
      std::string line = buf_.substr(0, nl);
      buf_.erase(0, nl + 1);
      return line;
    }
    scanned = buf_.size();
    if (buf_.size() > kMaxLine)
      return make_error(Status::ProtocolError,
                        "the PMI server sent a line over 1 MiB (" + origin_ + ")");
    Outcome o = fill();
    if (!o) return o.error();
  }
}

Result<std::string> PmiConn::read_exact(size_t n) {
  while (buf_.size() < n) {
    Outcome o = fill();
    if (!o) return o.error();
  }
  std::string out = buf_.substr(0, n);
  buf_.erase(0, n);
  return out;
}

void PmiConn::wait_for_close(int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    pollfd pfd{fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    char sink[256];
    ssize_t n = ::read(fd_, sink, sizeof(sink));
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
  }
}

}  // namespace torus::boot
