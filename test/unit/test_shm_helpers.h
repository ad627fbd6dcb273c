// Helpers shared by the shm unit tests (test_shm_*.cpp): configs, ifaces, pipes, child
// processes with deadlines. Children never return into doctest: they _exit().
#pragma once

#include <doctest/doctest.h>

#include <dirent.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/base/config.h"
#include "test/fd_io.h"
#include "transports/shm/shm_segment.h"
#include "transports/shm/shm_transport.h"

namespace torus::shm_test {

using Clock = std::chrono::steady_clock;
inline Clock::time_point deadline_in(int seconds) {
  return Clock::now() + std::chrono::seconds(seconds);
}

inline std::unique_ptr<config::Config> load_config(std::vector<std::string> vars) {
  std::vector<const char*> envp;
  for (const std::string& v : vars) envp.push_back(v.c_str());
  envp.push_back(nullptr);
  auto c = config::Config::load(envp.data());
  if (!c) return nullptr;
  return std::make_unique<config::Config>(std::move(c.value()));
}

inline std::unique_ptr<tl::Iface> open_iface(const std::string& job, uint64_t uid, int expected,
                                      const config::Config* cfg = nullptr,
                                      std::string* error = nullptr) {
  auto transport = shm::make_transport();
  std::string why;
  auto devices = transport->query(&why);
  if (devices.empty()) {
    if (error != nullptr) *error = why;
    return nullptr;
  }
  tl::IfaceParams p;
  p.config = cfg;
  p.worker_uid = uid;
  p.job_id = job;
  p.expected_local_peers = expected;
  auto iface = transport->open(devices[0], p);
  if (!iface) {
    if (error != nullptr) *error = iface.error().message;
    return nullptr;
  }
  return std::move(iface.value());
}

inline std::string unique_job(const char* tag) {
  return std::string("ut_") + tag + "_" + std::to_string(::getpid());
}

// Removes a job's segments when a test ends, however it ends, so a failed check never leaks
// /dev/shm. Declare it before the ifaces. (A forked child _exit()s and never runs it.)
struct JobGuard {
  std::string job;
  ~JobGuard() { shm::remove_job_segments(job); }
};

// Entries of /dev/shm that belong to `job`.
inline std::vector<std::string> leftovers(const std::string& job) {
  std::vector<std::string> out;
  const std::string prefix = "torus-" + shm::job_name_part(job) + "-";
  if (DIR* d = ::opendir("/dev/shm")) {
    while (const dirent* e = ::readdir(d))
      if (std::string_view(e->d_name).substr(0, prefix.size()) == prefix) out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

using test_io::read_all;
using test_io::write_all;

inline bool send_blob(int fd, std::span<const std::byte> blob) {
  const uint32_t n = static_cast<uint32_t>(blob.size());
  return write_all(fd, &n, sizeof(n)) && write_all(fd, blob.data(), n);
}

inline std::optional<std::vector<std::byte>> recv_blob(int fd, Clock::time_point deadline) {
  uint32_t n = 0;
  if (!read_all(fd, &n, sizeof(n), deadline) || n > (1u << 20)) return std::nullopt;
  std::vector<std::byte> v(n);
  if (!read_all(fd, v.data(), n, deadline)) return std::nullopt;
  return v;
}

// Runs f in a child process; the child never returns into doctest.
template <typename F>
pid_t spawn(F&& f) {
  // Buffered output would otherwise be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    int rc = 97;
    try {
      rc = f();
    } catch (...) {
      rc = 98;
    }
    ::_exit(rc);
  }
  return pid;
}

// The child's exit code; -1 if it had to be killed at the deadline or died of a signal.
// Waits on a pidfd, which becomes readable when the child exits (polls waitpid every 2 ms
// where pidfd_open is missing, e.g. under valgrind).
inline int reap(pid_t pid, Clock::time_point deadline) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (r < 0 || left <= 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      status = -1;
      break;
    }
    pollfd pfd{pidfd, POLLIN, 0};
    if (pidfd >= 0)
      ::poll(&pfd, 1, static_cast<int>(left));
    else
      ::poll(nullptr, 0, 2);
  }
  if (pidfd >= 0) ::close(pidfd);
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Pipe {
  int rd = -1, wr = -1;
  Pipe() {
    int fds[2] = {-1, -1};
    const int rc = ::pipe(fds);
    REQUIRE(rc == 0);
    rd = fds[0];
    wr = fds[1];
  }
  ~Pipe() {
    if (rd >= 0) ::close(rd);
    if (wr >= 0) ::close(wr);
  }
};

// A transport completion that counts its calls and keeps the last status.
struct Done : tl::Completion {
  int count = 0;
  Status status = Status::Ok;
  Done() {
    func = [](tl::Completion* self, Status s) {
      auto* d = static_cast<Done*>(self);
      ++d->count;
      d->status = s;
    };
  }
};

}  // namespace torus::shm_test
