// Unit tests of the shm transport's segments: naming, unlinking once every expected peer
// attached, cleanup of a crashed job's leftovers, configuration checks, reachability across
// hosts and namespaces.
#include <doctest/doctest.h>

#include <sched.h>

#include <cstddef>
#include <string>
#include <vector>

#include "test/unit/test_shm_helpers.h"
#include "transports/shm/shm_iface.h"
#include "transports/shm/shm_segment.h"

using namespace torus;
using namespace torus::shm_test;

TEST_CASE("shm segment: names, unlinking once every expected peer attached, crash leftovers") {
  const std::string job = unique_job("seg");
  const JobGuard guard{job};
  const std::string part = shm::job_name_part(job);
  auto exists = [](const std::string& name) {
    return ::access(("/dev/shm" + name).c_str(), F_OK) == 0;
  };
  const std::string name0 = "/torus-" + part + "-0123456789abcdef-0";
  const std::string name1 = "/torus-" + part + "-0123456789abcdef-1";

  SUBCASE("two ifaces of one worker get -0 and -1; unknown peers: unlinked at destruction") {
    auto a = open_iface(job, 0x0123456789abcdefull, -1);
    auto b = open_iface(job, 0x0123456789abcdefull, -1);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(exists(name0));
    CHECK(exists(name1));
    auto ep = b->connect(a->address());
    REQUIRE(ep);
    CHECK(exists(name0));
    ep->reset();
    a.reset();
    CHECK(!exists(name0));
    b.reset();
    CHECK(!exists(name1));
  }
  SUBCASE("expected_local_peers = 1: the first attach unlinks, the iface keeps working") {
    auto a = open_iface(job, 0x0123456789abcdefull, 1);
    auto b = open_iface(job, 0x42, -1);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(exists(name0));
    auto ep = b->connect(a->address());
    REQUIRE(ep);
    CHECK(!exists(name0));
    int got = 0;
    a->set_am_handler(2, [](void* arg, const void*, size_t) { ++*static_cast<int*>(arg); }, &got);
    CHECK((*ep)->am_short(2, {}, {}) == Status::Ok);
    CHECK(a->progress() == 1);
    CHECK(got == 1);
    // A further peer finds no name, and the error says why.
    auto c = open_iface(job, 0x43, -1);
    REQUIRE(c);
    auto late = c->connect(a->address());
    CHECK(late.status() == Status::Unreachable);
    CHECK(late.error().message.find("expected_local_peers") != std::string::npos);
  }
  SUBCASE("expected_local_peers = 0: never visible; the freed name is not taken twice") {
    auto a = open_iface(job, 0x0123456789abcdefull, 0);
    REQUIRE(a);
    CHECK(!exists(name0));
    // -0 is free in /dev/shm but a's wake-up socket still holds its name: b takes -1.
    auto b = open_iface(job, 0x0123456789abcdefull, -1);
    REQUIRE(b);
    CHECK(exists(name1));
    auto ep = a->connect(b->address());
    REQUIRE(ep);
    int got = 0;
    b->set_am_handler(2, [](void* arg, const void*, size_t) { ++*static_cast<int*>(arg); }, &got);
    CHECK((*ep)->am_short(2, {}, {}) == Status::Ok);
    CHECK(b->progress() == 1);
    CHECK(got == 1);
    CHECK(b->connect(a->address()).status() == Status::Unreachable);  // nobody may attach a
  }
  SUBCASE("a crashed job's segments are removed by remove_job_segments") {
    const pid_t pid = spawn([&]() -> int {
      auto a = open_iface(job, 0x0123456789abcdefull, -1);
      auto b = open_iface(job, 0x77, -1);
      if (!a || !b) return 10;
      ::_exit(0);  // no destructors: what a crash leaves
    });
    REQUIRE(pid > 0);
    CHECK(reap(pid, deadline_in(30)) == 0);
    CHECK(leftovers(job).size() == 2);
    // A job whose name merely starts the same is not touched.
    auto other = open_iface(job + "x", 0x99, -1);
    REQUIRE(other);
    CHECK(shm::remove_job_segments(job) == 2);
    CHECK(leftovers(job).empty());
    CHECK(leftovers(job + "x").size() == 1);
    CHECK(shm::remove_job_segments("") == 0);
  }
  CHECK(leftovers(job).empty());
}

TEST_CASE("shm segment: configuration is validated with the variable's name") {
  std::string error;
  auto cfg = load_config({"TORUS_SHM_FIFO_SIZE=3"});
  REQUIRE(cfg);
  CHECK(open_iface(unique_job("cfg"), 1, -1, cfg.get(), &error) == nullptr);
  CHECK(error.find("TORUS_SHM_FIFO_SIZE") != std::string::npos);
  CHECK(error.find("power of two") != std::string::npos);
  cfg = load_config({"TORUS_SHM_SEG_SIZE=100"});
  REQUIRE(cfg);
  CHECK(open_iface(unique_job("cfg"), 1, -1, cfg.get(), &error) == nullptr);
  CHECK(error.find("TORUS_SHM_SEG_SIZE") != std::string::npos);
  cfg = load_config({"TORUS_SHM_LANES=65"});
  REQUIRE(cfg);
  CHECK(open_iface(unique_job("cfg"), 1, -1, cfg.get(), &error) == nullptr);
  CHECK(error.find("TORUS_SHM_LANES=65") != std::string::npos);
  CHECK(error.find("from 0 to 64") != std::string::npos);
  cfg = load_config({"TORUS_SHM_LANE_SIZE=6"});
  REQUIRE(cfg);
  CHECK(open_iface(unique_job("cfg"), 1, -1, cfg.get(), &error) == nullptr);
  CHECK(error.find("TORUS_SHM_LANE_SIZE=6") != std::string::npos);
  // No lane, no lane size to check.
  cfg = load_config({"TORUS_SHM_LANES=0", "TORUS_SHM_LANE_SIZE=6"});
  REQUIRE(cfg);
  CHECK(open_iface(unique_job("cfg"), 1, -1, cfg.get(), &error) != nullptr);
  CHECK(leftovers(unique_job("cfg")).empty());
}

TEST_CASE("shm segment: reachability compares host, IPC, network and PID namespace") {
  auto a = open_iface(unique_job("reach"), 1, -1);
  REQUIRE(a);
  std::string why;
  CHECK(a->is_reachable(a->address(), &why));
  std::vector<std::byte> addr(a->address().begin(), a->address().end());
  auto tamper = [&](size_t offset) {
    std::vector<std::byte> t = addr;
    t[offset] ^= std::byte{1};
    return t;
  };
  CHECK(!a->is_reachable(tamper(offsetof(shm::AddressHeader, boot_id)), &why));
  CHECK(why.find("another host") != std::string::npos);
  CHECK(!a->is_reachable(tamper(offsetof(shm::AddressHeader, ipc_ns)), &why));
  CHECK(why.find("IPC namespace") != std::string::npos);
  CHECK(!a->is_reachable(tamper(offsetof(shm::AddressHeader, net_ns)), &why));
  CHECK(why.find("network namespace") != std::string::npos);
  CHECK(!a->is_reachable(tamper(offsetof(shm::AddressHeader, pid_ns)), &why));
  CHECK(why.find("PID namespace") != std::string::npos);
  CHECK(!a->is_reachable(std::span(addr).first(10), &why));
  CHECK(a->connect(std::span(addr).first(10)).status() == Status::Unreachable);
  const tl::IfaceAttr& at = a->attributes();
  CHECK(at.caps.am_short);
  CHECK(at.caps.get_zcopy);
  CHECK(at.limits.max_short == shm::kMaxInline);
  CHECK(at.limits.max_bcopy == 8192 + shm::kSegHeadroom);
  CHECK(at.reach == tl::Reach::SameHost);
  CHECK(at.rkey_size == sizeof(shm::PackedRkey));
}

TEST_CASE("shm segment: a peer in another network namespace is unreachable, and says why") {
  const std::string job = unique_job("netns");
  const JobGuard guard{job};
  Pipe out;
  const pid_t pid = spawn([&]() -> int {
    if (::unshare(CLONE_NEWNET) != 0) return 2;  // not privileged: nothing to test
    auto iface = open_iface(job, 0x31, -1);
    if (!iface) return 10;
    return send_blob(out.wr, iface->address()) ? 0 : 11;
  });
  REQUIRE(pid > 0);
  const int rc = reap(pid, deadline_in(30));
  if (rc == 2) {
    MESSAGE("unshare(CLONE_NEWNET) refused here: skipped");
    return;
  }
  REQUIRE(rc == 0);
  auto addr = recv_blob(out.rd, deadline_in(10));
  REQUIRE(addr);
  auto local = open_iface(job, 0x32, -1);
  REQUIRE(local);
  std::string why;
  CHECK(!local->is_reachable(*addr, &why));
  CHECK(why.find("network namespace") != std::string::npos);
  auto ep = local->connect(*addr);
  CHECK(ep.status() == Status::Unreachable);
}
