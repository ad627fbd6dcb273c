// A peer killed with SIGKILL in the middle of a rendezvous: the survivor's pending requests
// complete with an error within a bounded time, and no shared-memory segment of the job is
// left behind.
#include <doctest/doctest.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "test/integration/pair.h"

using namespace torus;
using namespace torus::test;
using namespace std::chrono_literals;

namespace {

constexpr size_t kBig = 16u << 20;  // rendezvous under every default table

int count_segments(const std::string& prefix) {
  int n = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) ++n;
    closedir(d);
  }
  return n;
}

std::string set_job_id(const char* what) {
  std::string job = std::string(what) + std::to_string(getpid());
  setenv("TORUS_JOB_ID", job.c_str(), 1);
  return "torus-" + job + "-";
}

[[noreturn]] void park() {
  for (;;) pause();
}

}  // namespace

TEST_CASE("receiver killed while the sender waits for its read") {
  std::string prefix = set_job_id("kr");
  auto parent = [](Peer& p) {
    std::vector<std::byte> buf(kBig, std::byte{1});
    Request* req = nullptr;
    Status s = p.ep->tag_send(buf.data(), buf.size(), 11, &req);
    if (s != Status::InProgress) return 1;
    pid_t child = static_cast<pid_t>(p.recv_u64());  // the child saw the RTS
    kill(child, SIGKILL);
    auto t0 = std::chrono::steady_clock::now();
    s = p.wait(req, 10s);
    auto took = std::chrono::steady_clock::now() - t0;
    std::fprintf(stderr, "sender: send completed with '%s' %.1f ms after the kill\n",
                 status_string(s), std::chrono::duration<double, std::milli>(took).count());
    if (s == Status::Timeout || s == Status::Ok) return 2;
    req->release();
    return 0;
  };
  auto child = [](Peer& p) {
    RecvInfo info;
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!p.worker->tag_probe(11, kTagMaskFull, &info)) {
      if (std::chrono::steady_clock::now() > deadline) return 1;
      p.worker->progress();
    }
    p.send_u64(static_cast<uint64_t>(getpid()));
    park();
  };
  std::string r = run_pair(parent, child);
  CHECK(r == " child killed by signal 9");
  CHECK(count_segments(prefix) == 0);
  unsetenv("TORUS_JOB_ID");
}

TEST_CASE("sender killed before the receiver reads") {
  std::string prefix = set_job_id("ks");
  auto parent = [](Peer& p) {
    pid_t child = static_cast<pid_t>(p.recv_u64());  // the child's RTS is on its way
    RecvInfo info;
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!p.worker->tag_probe(12, kTagMaskFull, &info)) {
      if (std::chrono::steady_clock::now() > deadline) return 1;
      p.worker->progress();
    }
    kill(child, SIGKILL);
    std::this_thread::sleep_for(20ms);  // the sender is gone before we read
    std::vector<std::byte> buf(kBig);
    Request* req = nullptr;
    if (p.worker->tag_recv(buf.data(), buf.size(), 12, kTagMaskFull, &req) != Status::InProgress)
      return 3;
    Status s = p.wait(req, 10s);
    std::fprintf(stderr, "receiver: receive completed with '%s'\n", status_string(s));
    if (s == Status::Timeout || s == Status::Ok) return 2;
    req->release();
    return 0;
  };
  auto child = [](Peer& p) {
    std::vector<std::byte> buf(kBig, std::byte{2});
    Request* req = nullptr;
    Status s = p.ep->tag_send(buf.data(), buf.size(), 12, &req);
    if (s != Status::InProgress) return 1;
    p.send_u64(static_cast<uint64_t>(getpid()));
    for (;;) p.worker->progress();
  };
  std::string r = run_pair(parent, child);
  CHECK(r == " child killed by signal 9");
  CHECK(count_segments(prefix) == 0);
  unsetenv("TORUS_JOB_ID");
}

TEST_CASE("messages already sent survive their sender's exit") {
  std::string prefix = set_job_id("kx");
  // Multi-fragment eager messages that fit the receive ring together: all are in flight when
  // the sender exits. Below every shm threshold for a message among others or alone (~8 KiB
  // alone only once a few hundred timed copies have shown far cores, which 120 fragments
  // cannot): above it they would wait for the receiver by rendezvous.
  constexpr int kN = 60;
  constexpr size_t kSize = 11000;
  auto parent = [](Peer& p) {
    (void)p.recv_u64();
    std::this_thread::sleep_for(100ms);  // the sender has exited by now
    for (int i = 0; i < kN; ++i) {
      std::vector<std::byte> buf(kSize);
      Request* req = nullptr;
      if (p.worker->tag_recv(buf.data(), buf.size(), 500 + i, kTagMaskFull, &req) !=
          Status::InProgress)
        return 1;
      Status s = p.wait(req, 10s);
      req->release();
      if (s != Status::Ok) {
        std::fprintf(stderr, "message %d after the sender exited: %s\n", i, status_string(s));
        return 2;
      }
      if (check_pattern(buf.data(), buf.size(), i) != SIZE_MAX) return 3;
    }
    return 0;
  };
  auto child = [](Peer& p) {
    std::vector<std::byte> buf(kSize);
    for (int i = 0; i < kN; ++i) {
      fill_pattern(buf.data(), buf.size(), i);
      Request* req = nullptr;
      Status s = p.ep->tag_send(buf.data(), buf.size(), 500 + i, &req);
      if (s == Status::InProgress) s = p.wait(req);
      if (s != Status::Ok) return 1;
    }
    p.send_u64(1);
    _exit(0);  // no goodbye: the receiver learns of the exit from the transport
  };
  CHECK(run_pair(parent, child) == "");
  CHECK(count_segments(prefix) == 0);
  unsetenv("TORUS_JOB_ID");
}
