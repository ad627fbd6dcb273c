// Staged CMA (shm_cma.h): which transfers count as aliased, every byte of a staged read and
// write at the slow distances (across chunk boundaries, guards untouched), and a get and a
// put through an iface opened with TORUS_SHM_CMA_STAGE=y.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <vector>

#include "test/unit/test_shm_helpers.h"
#include "transports/shm/shm_cma.h"
#include "transports/shm/shm_iface.h"

using namespace torus;
using namespace torus::shm_test;

namespace {

std::byte pattern(size_t i, unsigned salt) {
  return static_cast<std::byte>((i * 29 + salt) & 0xff);
}

// A buffer with room around it: `at(offset)` is `offset` bytes past a page boundary.
struct Buffer {
  explicit Buffer(size_t n) : bytes(n + 3 * 4096) {}
  std::byte* at(size_t offset) {
    const auto base = (reinterpret_cast<uintptr_t>(bytes.data()) + 4095) & ~uintptr_t{4095};
    return reinterpret_cast<std::byte*>(base + 4096 + offset);
  }
  std::vector<std::byte> bytes;
};

// Copies n bytes between two buffers of this process, `distance` apart modulo a page in the
// kernel's direction; checks the bytes and 64 guard bytes on each side of the destination.
bool transfer_checks(bool is_read, bool stage, size_t n, size_t src_off, size_t distance) {
  Buffer src(n + 8192), dst(n + 8192);
  const size_t dst_off = src_off + distance;
  std::byte* s = src.at(src_off);
  std::byte* d = dst.at(dst_off);
  for (size_t i = 0; i < n; ++i) s[i] = pattern(i, static_cast<unsigned>(n));
  std::memset(d - 64, 0xa5, n + 128);
  const pid_t me = ::getpid();
  // A read copies remote (s) into local (d); a write copies local (s) into remote (d).
  const int err = is_read ? shm::cma_read(me, {d, n}, reinterpret_cast<uint64_t>(s), stage)
                          : shm::cma_write(me, {s, n}, reinterpret_cast<uint64_t>(d), stage);
  if (err != 0) return false;
  if (std::memcmp(d, s, n) != 0) return false;
  for (int i = 1; i <= 64; ++i)
    if (d[-i] != std::byte{0xa5} || d[n + static_cast<size_t>(i) - 1] != std::byte{0xa5})
      return false;
  return true;
}

}  // namespace

TEST_CASE("shm cma: the kernel's direction decides which transfers are aliased") {
  alignas(4096) static std::byte page[3 * 4096];
  const auto remote = reinterpret_cast<uint64_t>(page);
  CHECK(shm::cma_aliased(true, page + 4096 + 8, remote));    // read: local 8 past remote
  CHECK_FALSE(shm::cma_aliased(false, page + 4096 + 8, remote));  // write: remote 8 behind
  CHECK(shm::cma_aliased(false, page + 4096, remote + 8));
  CHECK(shm::cma_aliased(true, page + 4096 + 15, remote));
  CHECK_FALSE(shm::cma_aliased(true, page + 4096 + 16, remote));
  CHECK_FALSE(shm::cma_aliased(true, page + 4096, remote));
}

TEST_CASE("shm cma: staged reads and writes move every byte, plain ones too") {
  const size_t sizes[] = {2047, 2048, 4099, shm::kCmaStageChunk, shm::kCmaStageChunk + 1,
                          2 * shm::kCmaStageChunk + 4093};
  for (bool is_read : {true, false}) {
    for (bool stage : {true, false}) {
      for (size_t n : sizes) {
        for (size_t distance : {0, 1, 8, 15, 16, 4095}) {
          for (size_t src_off : {0, 100, 4000}) {
            INFO("read=" << is_read << " stage=" << stage << " n=" << n
                         << " distance=" << distance << " src_off=" << src_off);
            REQUIRE(transfer_checks(is_read, stage, n, src_off, distance));
          }
        }
      }
    }
  }
}

TEST_CASE("shm cma: an iface with TORUS_SHM_CMA_STAGE=y gets and puts at a slow distance") {
  const std::string job = unique_job("stage");
  const JobGuard guard{job};
  auto cfg = load_config({"TORUS_SHM_CMA_STAGE=y", "TORUS_SHM_COOP_THRESH=0"});
  REQUIRE(cfg);
  auto target = open_iface(job, 1, -1, cfg.get());
  auto init = open_iface(job, 2, -1, cfg.get());
  REQUIRE(target);
  REQUIRE(init);
  constexpr size_t n = 600 << 10;
  Buffer remote_buf(n), local_buf(n);
  std::byte* remote = remote_buf.at(16);
  std::byte* local = local_buf.at(24);  // 8 past the remote address modulo a page
  for (size_t i = 0; i < n; ++i) remote[i] = pattern(i, 3);
  auto mr = target->mem_register(remote, n, tl::kAccessRead | tl::kAccessWrite);
  REQUIRE(mr);
  std::vector<std::byte> key(init->attributes().rkey_size);
  (*mr)->pack_rkey(key);
  auto ep = init->connect(target->address());
  REQUIRE(ep);
  const auto raddr = reinterpret_cast<uint64_t>(remote);
  Done got;
  const Status g = (*ep)->get_zcopy({local, n}, raddr, key, &got);
  REQUIRE((g == Status::Ok || g == Status::InProgress));
  CHECK(std::memcmp(local, remote, n) == 0);
  // A put's kernel copy runs from local to remote: aliased when local is 8 behind.
  Buffer put_buf(n);
  std::byte* from = put_buf.at(8);
  for (size_t i = 0; i < n; ++i) from[i] = pattern(i, 4);
  Done put;
  const Status p = (*ep)->put_zcopy({from, n}, raddr, key, &put);
  REQUIRE((p == Status::Ok || p == Status::InProgress));
  CHECK(std::memcmp(from, remote, n) == 0);
}

TEST_CASE("shm cma: TORUS_SHM_CMA_STAGE reaches the iface's settings") {
  const std::string job = unique_job("stageset");
  const JobGuard guard{job};
  for (const char* v : {"y", "n"}) {
    auto cfg = load_config({std::string("TORUS_SHM_CMA_STAGE=") + v});
    REQUIRE(cfg);
    auto iface = open_iface(job, v[0] == 'y' ? 1 : 2, -1, cfg.get());
    REQUIRE(iface);
    CHECK(dynamic_cast<shm::ShmIface&>(*iface).settings().cma_stage == (v[0] == 'y'));
  }
}

TEST_CASE("shm cma: a bad TORUS_SHM_CMA_STAGE names the variable and what it accepts") {
  auto c = config::Config::load(
      std::vector<const char*>{"TORUS_SHM_CMA_STAGE=sometimes", nullptr}.data());
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message ==
        "TORUS_SHM_CMA_STAGE=\"sometimes\" is invalid: accepted values are auto|y|n");
}
