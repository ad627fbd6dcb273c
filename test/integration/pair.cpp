// Fork-based two-process harness: the child never returns into the test framework.
#include "test/integration/pair.h"

#include <signal.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

namespace torus::test {
namespace {

bool write_all(int fd, const void* p, size_t n) {
  auto* b = static_cast<const char*>(p);
  while (n) {
    ssize_t w = ::send(fd, b, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  auto* b = static_cast<char*>(p);
  while (n) {
    ssize_t r = ::read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Sets up a peer: context, worker, address exchange, endpoint. Returns an error text.
std::string setup(Peer& p) {
  ContextParams params;
  params.expected_local_peers = 1;  // as a launcher would say: lets segments unlink early
  auto ctx = Context::create(params);
  if (!ctx) return "context: " + ctx.error().message;
  p.ctx = std::move(ctx.value());
  auto w = p.ctx->create_worker();
  if (!w) return "worker: " + w.error().message;
  p.worker = std::move(w.value());
  std::vector<std::byte> mine = p.worker->address();
  uint64_t len = mine.size();
  if (!write_all(p.sock, &len, sizeof(len)) || !write_all(p.sock, mine.data(), mine.size()))
    return "address send failed";
  if (!read_all(p.sock, &len, sizeof(len)) || len > (1 << 20)) return "address receive failed";
  std::vector<std::byte> theirs(len);
  if (!read_all(p.sock, theirs.data(), len)) return "address receive failed";
  auto ep = p.worker->connect(theirs);
  if (!ep) return "connect: " + ep.error().message;
  p.ep = ep.value();
  return "";
}

}  // namespace

void Peer::barrier() {
  char c = 'b';
  if (!write_all(sock, &c, 1)) {
    std::fprintf(stderr, "barrier: peer gone\n");
    _exit(90);
  }
  // Progress while waiting: a send that completed locally (its buffer is reusable) may
  // still need this side's progress to reach the peer. libfabric's tcp;ofi_rxm moves data
  // only while the sender polls: a barrier that merely blocked after a multi-megabyte eager
  // send left its tail in the sender's queue, and the peer's receive timed out.
  for (;;) {
    pollfd pfd{sock, POLLIN, 0};
    if (poll(&pfd, 1, 0) == 1) break;
    if (worker) worker->progress();
  }
  if (!read_all(sock, &c, 1)) {
    std::fprintf(stderr, "barrier: peer gone\n");
    _exit(90);
  }
}

void Peer::send_u64(uint64_t v) {
  if (!write_all(sock, &v, sizeof(v))) _exit(91);
}

uint64_t Peer::recv_u64() {
  // Progress while waiting: over a connection-oriented transport (tcp) what this side sent
  // last may still need its progress to reach the peer (the connection handshake).
  for (;;) {
    pollfd pfd{sock, POLLIN, 0};
    if (poll(&pfd, 1, 0) == 1) break;
    if (worker) worker->progress();
  }
  uint64_t v = 0;
  if (!read_all(sock, &v, sizeof(v))) _exit(92);
  return v;
}

void Peer::drain() {
  char c = 'd';
  if (!write_all(sock, &c, 1)) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    worker->progress();
    pollfd pfd{sock, POLLIN, 0};
    if (poll(&pfd, 1, 0) == 1) {
      (void)read_all(sock, &c, 1);
      return;
    }
  }
}

Status Peer::wait(Request* req, std::chrono::milliseconds timeout) {
  return worker->wait_request(req, timeout);
}

std::string run_pair(const std::function<int(Peer&)>& parent,
                     const std::function<int(Peer&)>& child, std::chrono::seconds timeout) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return std::string("socketpair: ") + std::strerror(errno);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid == 0) {
    close(sv[0]);
    int rc;
    {
      Peer p;
      p.sock = sv[1];
      std::string err = setup(p);
      if (!err.empty()) {
        std::fprintf(stderr, "child setup: %s\n", err.c_str());
        _exit(80);
      }
      rc = child(p);
      if (rc == 0) p.drain();
    }
    std::fflush(nullptr);
    _exit(rc);
  }
  close(sv[1]);
  std::string result;
  int prc;
  {
    Peer p;
    p.sock = sv[0];
    p.is_parent = true;
    std::string err = setup(p);
    if (!err.empty()) {
      result = "parent setup: " + err;
      prc = -1;
    } else {
      prc = parent(p);
      if (prc == 0) p.drain();
    }
    close(sv[0]);
  }
  // Bounded wait for the child: never hang the suite.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return result + " child timed out";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (prc != 0 && result.empty()) result = "parent failed with " + std::to_string(prc);
  if (WIFSIGNALED(status)) {
    result += " child killed by signal " + std::to_string(WTERMSIG(status));
  } else if (WEXITSTATUS(status) != 0) {
    result += " child exited " + std::to_string(WEXITSTATUS(status));
  }
  return result;
}

void fill_pattern(std::byte* p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    if ((i & 7) == 0) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    p[i] = static_cast<std::byte>(x >> ((i & 7) * 8));
  }
}

size_t check_pattern(const std::byte* p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; ++i) {
    if ((i & 7) == 0) x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    if (p[i] != static_cast<std::byte>(x >> ((i & 7) * 8))) return i;
  }
  return SIZE_MAX;
}

}  // namespace torus::test
