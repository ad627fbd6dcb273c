// Unit tests of cooperative gets (shm_coop.h): large gets copied by both processes arrive byte
// for byte; a target that never polls leaves every chunk to the initiator, which still
// finishes; a late request for a finished job claims nothing from the slot's next job.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test/unit/test_shm_helpers.h"
#include "transports/shm/shm_iface.h"

using namespace torus;
using namespace torus::shm_test;

namespace {

std::byte pattern(size_t i) { return static_cast<std::byte>((i * 29 + 7) & 0xff); }

constexpr size_t kLen = (8u << 20) + 4096;
constexpr tl::AmId kDoneAm = 6;

struct Target {
  uint64_t base = 0;
};

// The target: registers kLen bytes of pattern(), sends address, key and base, then waits for
// one byte on `go_fd` (not polling: a target busy elsewhere), then polls until "done".
int target_main(const std::string& job, int out_fd, int go_fd) {
  auto iface = open_iface(job, 0x71, -1);
  if (!iface) return 31;
  std::vector<std::byte> buf(kLen);
  for (size_t i = 0; i < kLen; ++i) buf[i] = pattern(i);
  auto mr = iface->mem_register(buf.data(), buf.size(), tl::kAccessRead);
  if (!mr) return 32;
  std::vector<std::byte> key(iface->attributes().rkey_size);
  (*mr)->pack_rkey(key);
  bool done = false;
  iface->set_am_handler(
      kDoneAm, [](void* arg, const void*, size_t) { *static_cast<bool*>(arg) = true; }, &done);
  const Target t{reinterpret_cast<uint64_t>(buf.data())};
  if (!send_blob(out_fd, iface->address()) || !send_blob(out_fd, key) ||
      !send_blob(out_fd, std::as_bytes(std::span(&t, 1))))
    return 33;
  char go = 0;
  if (!read_all(go_fd, &go, 1, deadline_in(60))) return 34;
  const auto deadline = deadline_in(90);
  while (!done && Clock::now() < deadline) iface->progress();
  return done ? 0 : 35;
}

shm::Coop& coop_of(tl::Iface& iface) { return dynamic_cast<shm::ShmIface&>(iface).coop(); }

// One get of [off, off + n) of the target's buffer, checked byte for byte.
bool get_checked(tl::Iface& iface, tl::Endpoint& ep, const Target& t,
                 const std::vector<std::byte>& key, size_t off, size_t n, Status* started) {
  std::vector<std::byte> local(n, std::byte{0xee});
  Done d;
  *started = ep.get_zcopy(local, t.base + off, key, &d);
  if (*started == Status::InProgress) {
    const auto deadline = deadline_in(30);
    while (d.count == 0 && Clock::now() < deadline) iface.progress();
    if (d.count != 1 || d.status != Status::Ok) return false;
  } else if (*started != Status::Ok) {
    return false;
  }
  for (size_t i = 0; i < n; ++i)
    if (local[i] != pattern(off + i)) return false;
  return true;
}

}  // namespace

TEST_CASE("shm coop: large gets are shared with the target when it polls, and never wait "
          "for one that does not") {
  const std::string job = unique_job("coop");
  const JobGuard guard{job};
  Pipe info, go;
  const pid_t pid = spawn([&]() { return target_main(job, info.wr, go.rd); });
  REQUIRE(pid > 0);
  auto cfg = load_config({"TORUS_SHM_COOP_THRESH=64k"});
  auto iface = open_iface(job, 0x72, -1, cfg.get());
  REQUIRE(iface);
  const auto deadline = deadline_in(30);
  auto address = recv_blob(info.rd, deadline);
  auto key = address ? recv_blob(info.rd, deadline) : std::nullopt;
  auto tb = key ? recv_blob(info.rd, deadline) : std::nullopt;
  REQUIRE(tb);
  REQUIRE(tb->size() == sizeof(Target));
  Target t;
  std::memcpy(&t, tb->data(), sizeof(t));
  auto ep = iface->connect(*address);
  REQUIRE(ep);
  Status started = Status::Ok;
  shm::Coop& coop = coop_of(*iface);

  // CMA is proven by a plain get first; cooperative gets follow only then.
  CHECK(get_checked(*iface, **ep, t, *key, 1, 1000, &started));
  CHECK(started == Status::Ok);

  // The target is blocked on a pipe: nobody helps, and the gets still complete at once.
  for (size_t n : {size_t{64} << 10, (size_t{1} << 20) + 3, size_t{4} << 20}) {
    CAPTURE(n);
    CHECK(get_checked(*iface, **ep, t, *key, 5, n, &started));
    CHECK(started == Status::Ok);
  }
  CHECK(coop.chunks_received() == 0);

  // Now it polls (and first meets the stale requests above, which must claim nothing from
  // the jobs below). Sizes that are not multiples of a chunk or a page, odd offsets.
  REQUIRE(write_all(go.wr, "g", 1));
  const auto until = deadline_in(20);
  int gets = 0;
  while (gets < 8 || (coop.chunks_received() == 0 && Clock::now() < until)) {
    const size_t n = gets % 2 == 0 ? kLen - 4096 : (size_t{3} << 20) + 12345;
    const size_t off = static_cast<size_t>(gets % 7) * 513;
    CAPTURE(gets);
    REQUIRE(get_checked(*iface, **ep, t, *key, off, n, &started));
    ++gets;
  }
  MESSAGE("cooperative gets: " << gets << ", chunks the target copied: "
                               << coop.chunks_received());
  CHECK(coop.chunks_received() > 0);  // it did help once it polled
  CHECK_FALSE(coop.busy());

  for (const auto end = deadline_in(10);;) {
    const Status s = (*ep)->am_short(kDoneAm, {}, {});
    if (s == Status::Ok) break;
    REQUIRE((s == Status::NoResource && Clock::now() < end));
    iface->progress();
  }
  CHECK(reap(pid, deadline_in(60)) == 0);
  ep->reset();
  iface.reset();
  CHECK(leftovers(job).empty());
}

TEST_CASE("shm coop: mid-size gets may be shared only while the cores are near") {
  const std::string job = unique_job("coopfar");
  const JobGuard guard{job};
  auto cfg = load_config({"TORUS_SHM_COOP_THRESH=1m", "TORUS_SHM_COOP_ADAPTIVE=64k"});
  auto iface = open_iface(job, 0x73, -1, cfg.get());
  REQUIRE(iface);
  auto& shm_iface = dynamic_cast<shm::ShmIface&>(*iface);
  shm::Coop& coop = shm_iface.coop();
  auto shared_of = [&](size_t length, int gets) {
    int shared = 0;
    for (int i = 0; i < gets; ++i) shared += coop.wanted(length) ? 1 : 0;
    return shared;
  };
  // Near (the class until measured): the policy probes sharing within its first cycle.
  REQUIRE(shm_iface.cores_near());
  CHECK(shared_of(128 << 10, 4 * shm::CoopPolicy::kEpochGets) > 0);
  CHECK(shared_of(1 << 20, 4) == 4);  // from the threshold up, always
  // Lines that take 10 us to come over: far, once the clock's rate is known (about 1 ms).
  const auto until = deadline_in(10);
  while (shm_iface.cores_near() && Clock::now() < until) shm_iface.line_timed(uint64_t{1} << 40);
  REQUIRE_FALSE(shm_iface.cores_near());
  CHECK(shared_of(128 << 10, 64 * shm::CoopPolicy::kEpochGets) == 0);
  CHECK(shared_of(1 << 20, 4) == 4);  // from the threshold up, shared wherever the cores are
  CHECK_FALSE(coop.wanted(32 << 10));  // below the adaptive range: never
}
