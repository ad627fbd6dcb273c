// Conformance across two real processes (fork) for every transport that reaches beyond its
// own worker: AMs both ways, get/put on the parent's memory with its key, refused keys,
// stale keys, and a parent asleep on event_fd() woken by the child.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "test/fd_io.h"
#include "test/transport/harness.h"

namespace torus::tltest {
namespace {

constexpr tl::AmId kFromChild = 10, kFromParent = 11, kRmaDone = 12, kStaleDone = 13,
                   kWake = 14;
constexpr size_t kParentMessages = 100;
constexpr size_t kRegionSize = (size_t{1} << 20) + 3;
constexpr size_t kGuard = 4096;  // after the region, registered nowhere
constexpr uint64_t kSeedBefore = 0x5151, kSeedAfter = 0x5252;

using Clock = std::chrono::steady_clock;

// The pipes are the bootstrap (what a launcher's PMI would be); data goes over the transport.
using test_io::write_all;

// Reads n bytes while progressing `p`: the other process may need us to progress (a
// bounce-buffer get is served by its target) while it prepares what we wait for.
bool read_progress(const Pair& p, int fd, void* data, size_t n) {
  auto* out = static_cast<char*>(data);
  const auto deadline = Clock::now() + kWait;
  while (n > 0) {
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 0) == 1) {
      const ssize_t r = ::read(fd, out, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;  // the other side died
      out += r;
      n -= static_cast<size_t>(r);
      continue;
    }
    if (Clock::now() > deadline) return false;
    p.progress();
  }
  return true;
}

bool send_blob(int fd, std::span<const std::byte> blob) {
  const uint32_t n = static_cast<uint32_t>(blob.size());
  return write_all(fd, &n, sizeof n) && write_all(fd, blob.data(), blob.size());
}

bool recv_blob(const Pair& p, int fd, std::vector<std::byte>* blob) {
  uint32_t n = 0;
  if (!read_progress(p, fd, &n, sizeof n) || n > (1u << 20)) return false;
  blob->resize(n);
  return read_progress(p, fd, blob->data(), n);
}

// What the child sends: every am_short size, then the bcopy edge sizes.
std::vector<std::pair<bool, size_t>> child_plan(const tl::IfaceAttr& a) {
  std::vector<std::pair<bool, size_t>> plan;
  if (a.caps.am_short)
    for (size_t s = 0; s <= a.limits.max_short; ++s) plan.emplace_back(true, s);
  if (a.caps.am_bcopy)
    for (size_t s : {size_t{0}, size_t{1}, a.limits.max_bcopy - 1, a.limits.max_bcopy})
      plan.emplace_back(false, s);
  return plan;
}

Status send_any(const Pair& p, tl::AmId id, std::span<const std::byte> data) {
  if (p.attr().caps.am_short && data.size() <= p.attr().limits.max_short)
    return send_short(p, *p.ab, id, {}, data);
  return send_bcopy(p, *p.ab, id, data);
}

struct RmaInfo {
  uint64_t addr;
  uint64_t length;
};

// The child: no doctest here (its reports would be lost); failures go to stderr and the
// exit status counts them.
int child_main(const Variant& v, int rd, int wr) {
  int fails = 0;
  auto fail = [&](const char* what, Status st) {
    std::fprintf(stderr, "[%s child %d] %s (%s)\n", v.label.c_str(), static_cast<int>(getpid()),
                 what, status_string(st));
    ++fails;
  };
  Pair p;
  auto iface = v.transport->open(v.device, make_params(v));
  if (!iface) {
    std::fprintf(stderr, "[child] open: %s\n", iface.error().message.c_str());
    return 100;
  }
  p.a_owned = std::move(iface.value());
  p.a = p.b = p.a_owned.get();
  // Handlers first: waiting on the pipe progresses the iface, which may already deliver.
  Inbox inbox;
  p.a->set_am_handler(kFromParent, &Inbox::handler, &inbox);
  std::vector<std::byte> parent_addr;
  if (!send_blob(wr, p.a->address()) || !recv_blob(p, rd, &parent_addr)) return 101;
  auto ep = p.a->connect(parent_addr);
  if (!ep) {
    std::fprintf(stderr, "[child] connect: %s\n", ep.error().message.c_str());
    return 102;
  }
  p.ab = std::move(ep.value());
  p.ba = p.ab.get();

  // 1. AMs to the parent.
  const auto plan = child_plan(p.attr());
  for (size_t i = 0; i < plan.size(); ++i) {
    std::vector<std::byte> msg(plan[i].second);
    fill_pattern(msg, i + 1);
    const Status st = plan[i].first ? send_short(p, *p.ab, kFromChild, {}, msg)
                                    : send_bcopy(p, *p.ab, kFromChild, msg);
    if (st != Status::Ok) fail("send to parent", st);
  }
  // 2. AMs from the parent.
  if (!wait_until(p, [&] { return inbox.msgs.size() >= kParentMessages; }))
    fail("timed out waiting for the parent's messages", Status::Timeout);
  for (size_t i = 0; i < inbox.msgs.size(); ++i)
    if (inbox.msgs[i].size() != 8 + i || find_mismatch(inbox.msgs[i], 500 + i) != 8 + i)
      fail("a message from the parent differs", Status::Ok);

  // 3. get/put on the parent's region with its key, and keys that must be refused.
  std::vector<std::byte> blob;
  if (!recv_blob(p, rd, &blob) || blob.size() < sizeof(RmaInfo)) return 103;
  RmaInfo info;
  std::memcpy(&info, blob.data(), sizeof info);
  const std::span<const std::byte> rkey = std::span(blob).subspan(sizeof info);
  const tl::Caps caps = p.attr().caps;
  std::vector<std::byte> local(info.length);
  if (caps.get_zcopy) {
    const Status st = do_get(p, *p.ab, local, info.addr, rkey);
    if (st != Status::Ok) fail("get of the parent's region", st);
    else if (find_mismatch(local, kSeedBefore) != local.size()) fail("get: data differs", st);
  }
  if (caps.put_zcopy) {
    fill_pattern(local, kSeedAfter);
    Status st = do_put(p, *p.ab, local, info.addr, rkey);
    if (st != Status::Ok) fail("put to the parent's region", st);
    std::vector<std::byte> tail(16, std::byte{0x77});
    st = do_put(p, *p.ab, tail, info.addr + info.length - 8, rkey);
    if (st != Status::AccessDenied) fail("put past the region's end was not refused", st);
  }
  std::vector<std::byte> forged(rkey.begin(), rkey.end());
  for (uint64_t i = 0; i < 8; ++i) {
    fill_pattern(forged, mix(i + 777));
    std::vector<std::byte> small(64, std::byte{0xDD});
    if (caps.get_zcopy) {
      const Status st = do_get(p, *p.ab, small, info.addr, forged);
      if (st != Status::AccessDenied) fail("get with a random key was not refused", st);
      if (find_not_byte(small, std::byte{0xDD}) != small.size())
        fail("a refused get wrote local bytes", st);
    }
    if (caps.put_zcopy) {
      const Status st = do_put(p, *p.ab, small, info.addr, forged);
      if (st != Status::AccessDenied) fail("put with a random key was not refused", st);
    }
  }
  Status st = do_flush(p, *p.ab);
  if (st != Status::Ok) fail("flush", st);
  const std::byte done[1] = {};
  if ((st = send_any(p, kRmaDone, done)) != Status::Ok) fail("send rma-done", st);

  // 4. The parent destroyed the registration: the same key must now be refused.
  char cmd = 0;
  if (!read_progress(p, rd, &cmd, 1)) return 104;
  std::vector<std::byte> small(64, std::byte{0xDD});
  if (caps.get_zcopy) {
    st = do_get(p, *p.ab, small, info.addr, rkey);
    if (st != Status::AccessDenied) fail("get with a stale key was not refused", st);
    if (find_not_byte(small, std::byte{0xDD}) != small.size()) fail("stale get wrote bytes", st);
  }
  if (caps.put_zcopy) {
    st = do_put(p, *p.ab, small, info.addr, rkey);
    if (st != Status::AccessDenied) fail("put with a stale key was not refused", st);
  }
  (void)do_flush(p, *p.ab);
  if ((st = send_any(p, kStaleDone, done)) != Status::Ok) fail("send stale-done", st);

  // 5. The parent is going to sleep: wake it.
  if (!read_progress(p, rd, &cmd, 1)) return 105;
  if ((st = send_any(p, kWake, done)) != Status::Ok) fail("send wake", st);
  if (!read_progress(p, rd, &cmd, 1)) return 106;  // "bye": the parent got everything
  p.ab.reset();
  p.a_owned.reset();
  return fails;
}

void counter(void* arg, const void*, size_t) { ++*static_cast<int*>(arg); }

// Waits for the child to exit (bounded); kills it if it hangs. Returns its exit status.
int reap(const Pair& p, pid_t pid) {
  int status = 0;
  const auto deadline = Clock::now() + kWait;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    if (p.a != nullptr) p.progress();
  }
  if (WIFSIGNALED(status)) return -1000 - WTERMSIG(status);
  return WEXITSTATUS(status);
}

void parent_main(const Variant& v, pid_t child, int rd, int wr) {
  Pair p;
  auto iface = v.transport->open(v.device, make_params(v));
  if (!iface) {
    FAIL_CHECK("open: " << iface.error().message);
    return;
  }
  p.a_owned = std::move(iface.value());
  p.a = p.b = p.a_owned.get();
  // Handlers first: waiting on the pipe progresses the iface, which may already deliver.
  Inbox inbox;
  int rma_done = 0, stale_done = 0, woken = 0;
  p.a->set_am_handler(kFromChild, &Inbox::handler, &inbox);
  p.a->set_am_handler(kRmaDone, &counter, &rma_done);
  p.a->set_am_handler(kStaleDone, &counter, &stale_done);
  p.a->set_am_handler(kWake, &counter, &woken);
  std::vector<std::byte> child_addr;
  TL_REQUIRE(send_blob(wr, p.a->address()));
  TL_REQUIRE(recv_blob(p, rd, &child_addr));
  std::string why;
  CHECK_MESSAGE(p.a->is_reachable(child_addr, &why), why);
  auto ep = p.a->connect(child_addr);
  TL_REQUIRE(ep.ok());
  p.ab = std::move(ep.value());
  p.ba = p.ab.get();

  const auto plan = child_plan(p.attr());
  CHECK(wait_until(p, [&] { return inbox.msgs.size() >= plan.size(); }));
  CHECK(inbox.msgs.size() == plan.size());
  for (size_t i = 0; i < std::min(plan.size(), inbox.msgs.size()); ++i) {
    INFO("message " << i << " from the child, " << plan[i].second << " bytes");
    CHECK(inbox.msgs[i].size() == plan[i].second);
    CHECK(find_mismatch(inbox.msgs[i], i + 1) == inbox.msgs[i].size());
  }
  for (size_t i = 0; i < kParentMessages; ++i) {
    std::vector<std::byte> msg(8 + i);
    fill_pattern(msg, 500 + i);
    CHECK(send_any(p, kFromParent, msg) == Status::Ok);
  }

  std::vector<std::byte> mem(kRegionSize + kGuard, std::byte{0xEE});
  const std::span<std::byte> region = std::span(mem).first(kRegionSize);
  fill_pattern(region, kSeedBefore);
  auto reg = p.a->mem_register(region.data(), region.size(), tl::kAccessRead | tl::kAccessWrite);
  TL_REQUIRE(reg.ok());
  std::vector<std::byte> blob(sizeof(RmaInfo) + p.attr().rkey_size);
  const RmaInfo info{addr_of(region.data()), region.size()};
  std::memcpy(blob.data(), &info, sizeof info);
  reg.value()->pack_rkey(std::span(blob).subspan(sizeof info));
  TL_REQUIRE(send_blob(wr, blob));
  CHECK(wait_until(p, [&] { return rma_done > 0; }));
  const tl::Caps caps = p.attr().caps;
  if (caps.put_zcopy) CHECK(find_mismatch(region, kSeedAfter) == region.size());
  else if (caps.get_zcopy) CHECK(find_mismatch(region, kSeedBefore) == region.size());
  CHECK_MESSAGE(find_not_byte(std::span(mem).last(kGuard), std::byte{0xEE}) == kGuard,
                "bytes after the registered region were written");

  reg.value().reset();
  const std::vector<std::byte> snapshot = mem;
  TL_REQUIRE(write_all(wr, "s", 1));
  CHECK(wait_until(p, [&] { return stale_done > 0; }));
  CHECK_MESSAGE(mem == snapshot, "the child wrote through a stale key");

  // Sleep on the event fd; only the child's message may wake us. Without one (libfabric
  // shm has no CQ wait fd) arm() refuses forever, so the worker polls: nothing to sleep on.
  const int fd = p.a->event_fd();
  Status st = Status::NoResource;
  if (fd >= 0) {
    wait_until(p, [&] { return (st = p.a->arm()) != Status::NoResource; });
    CHECK(st == Status::Ok);
  }
  TL_REQUIRE(write_all(wr, "g", 1));
  if (fd >= 0 && st == Status::Ok) {
    pollfd pfd{fd, POLLIN, 0};
    CHECK_MESSAGE(::poll(&pfd, 1, 10000) == 1, "asleep on event_fd: the child's message did "
                                               "not wake us in 10 s");
  }
  CHECK(wait_until(p, [&] { return woken > 0; }));
  TL_REQUIRE(write_all(wr, "b", 1));
  const int code = reap(p, child);
  CHECK_MESSAGE(code == 0, "child exit status " << code << " (failures are on stderr)");
}

TEST_CASE("two processes: AMs both ways, get/put with keys, stale keys, wake-up") {
  for_each_variant([](const Variant& v) {
    {  // Decide from a probe iface whether this transport reaches another process.
      auto probe = v.transport->open(v.device, make_params(v));
      TL_REQUIRE(probe.ok());
      if (probe.value()->attributes().reach == tl::Reach::SameWorker) return;
    }
    (void)job_id();  // computed before fork, so the child names the same job
    int to_child[2], to_parent[2];
    TL_REQUIRE(::pipe2(to_child, O_CLOEXEC) == 0);
    TL_REQUIRE(::pipe2(to_parent, O_CLOEXEC) == 0);
    const pid_t pid = ::fork();
    TL_REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(to_child[1]);
      ::close(to_parent[0]);
      // _exit: the child must not run the parent's static destructors or doctest's report.
      ::_exit(child_main(v, to_child[0], to_parent[1]));
    }
    ::close(to_child[0]);
    ::close(to_parent[1]);
    parent_main(v, pid, to_parent[0], to_child[1]);
    ::close(to_child[1]);  // a child still waiting sees EOF and exits
    ::close(to_parent[0]);
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == 0) {  // parent_main bailed out early
      Pair none;
      (void)reap(none, pid);
    }
  });
}

}  // namespace
}  // namespace torus::tltest
