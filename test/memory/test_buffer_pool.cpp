// The buffer pool: growth by chunks registered once, reuse, limits, failure recovery, threads,
// and the pinned-host allocator's use of the CUDA driver table (through a fake table: this
// is logic, not a GPU run; test/gpu covers a real device).
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "memory/buffer_pool.h"
#include "memory/cuda_pinned_allocator.h"
#include "recording_registrar.h"

namespace torus::mem {
namespace {

using test::RecordingRegistrar;

std::unique_ptr<BufferPool> make_pool(BufferPoolConfig cfg, Registrar* r,
                                      ChunkAllocator* a = nullptr) {
  auto p = BufferPool::create(cfg, r, a, "test");
  REQUIRE(p.ok());
  return std::move(p.value());
}

TEST_CASE("buffer pool: buffers are distinct, aligned, inside their registered chunk") {
  RecordingRegistrar reg;
  BufferPoolConfig cfg;
  cfg.buffer_size = 1000;  // not a multiple of the alignment
  cfg.alignment = 128;
  cfg.buffers_per_chunk = 8;
  cfg.access = 5;
  auto pool = make_pool(cfg, &reg);
  CHECK(reg.regs() == 0);  // nothing until first use

  std::vector<PoolBuffer*> got;
  for (int i = 0; i < 40; ++i) {
    auto b = pool->get();
    REQUIRE(b.ok());
    got.push_back(b.value());
  }
  std::set<uintptr_t> starts;
  for (PoolBuffer* b : got) {
    const auto a = reinterpret_cast<uintptr_t>(b->data);
    CHECK(a % 128 == 0);
    starts.insert(a);
    const auto rec = reg.record(b->handle);
    CHECK(rec.access == 5);
    CHECK(rec.start == b->chunk_start);
    CHECK(a >= rec.start);
    CHECK(a + cfg.buffer_size <= rec.end);
    std::memset(b->data, 0xab, cfg.buffer_size);  // the whole buffer is writable
  }
  CHECK(starts.size() == got.size());
  // Buffers never overlap: sorted starts are at least a stride apart.
  uintptr_t prev = 0;
  for (uintptr_t s : starts) {
    if (prev != 0) CHECK(s - prev >= 1024);
    prev = s;
  }
  const auto st = pool->stats();
  CHECK(st.in_use == 40);
  CHECK(st.chunks == reg.regs());  // one registration per chunk, none per buffer
  CHECK(st.chunks <= 5);           // 8 per chunk at least (page rounding may add more)
  for (PoolBuffer* b : got) pool->put(b);
  CHECK(pool->stats().in_use == 0);
  CHECK(pool->stats().peak_in_use == 40);
}

TEST_CASE("buffer pool: returned buffers are reused without growing") {
  RecordingRegistrar reg;
  BufferPoolConfig cfg;
  cfg.buffers_per_chunk = 4;
  auto pool = make_pool(cfg, &reg);
  for (int round = 0; round < 1000; ++round) {
    auto a = pool->get();
    auto b = pool->get();
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    pool->put(a.value());
    pool->put(b.value());
  }
  CHECK(pool->stats().chunks == 1);
  CHECK(reg.regs() == 1);
  CHECK(pool->stats().gets == 2000);
}

TEST_CASE("buffer pool: max_buffers bounds the pool and it recovers when buffers return") {
  RecordingRegistrar reg;
  BufferPoolConfig cfg;
  cfg.buffer_size = 64;
  cfg.buffers_per_chunk = 3;
  cfg.max_buffers = 5;
  auto pool = make_pool(cfg, &reg);
  std::vector<PoolBuffer*> got;
  for (int i = 0; i < 5; ++i) {
    auto b = pool->get();
    REQUIRE(b.ok());
    got.push_back(b.value());
  }
  auto refused = pool->get();
  REQUIRE(!refused.ok());
  CHECK(refused.error().status == Status::NoResource);
  CHECK(pool->stats().exhausted == 1);
  CHECK(pool->stats().buffers == 5);
  pool->put(got.back());
  got.pop_back();
  auto again = pool->get();
  REQUIRE(again.ok());
  got.push_back(again.value());
  for (PoolBuffer* b : got) pool->put(b);
}

TEST_CASE("buffer pool: a failed registration leaves nothing behind and the pool usable") {
  RecordingRegistrar reg;
  BufferPoolConfig cfg;
  cfg.buffers_per_chunk = 2;
  auto pool = make_pool(cfg, &reg);
  reg.fail_next(Status::NoMemory);
  auto b = pool->get();
  REQUIRE(!b.ok());
  CHECK(b.error().status == Status::NoMemory);
  CHECK(pool->stats().chunks == 0);
  auto ok = pool->get();
  REQUIRE(ok.ok());
  pool->put(ok.value());
}

TEST_CASE("buffer pool: destruction deregisters every chunk") {
  RecordingRegistrar reg;
  {
    BufferPoolConfig cfg;
    cfg.buffers_per_chunk = 1;
    auto pool = make_pool(cfg, &reg);
    std::vector<PoolBuffer*> got;
    for (int i = 0; i < 3; ++i) got.push_back(pool->get().value());
    for (PoolBuffer* b : got) pool->put(b);
  }
  CHECK(reg.regs() >= 1);
  CHECK(reg.live() == 0);
}

TEST_CASE("buffer pool: unregistered pools and bad configurations") {
  BufferPoolConfig cfg;
  auto pool = make_pool(cfg, nullptr);
  auto b = pool->get();
  REQUIRE(b.ok());
  CHECK(b.value()->handle == nullptr);
  pool->put(b.value());

  cfg.alignment = 96;
  auto bad = BufferPool::create(cfg, nullptr, nullptr, "bad");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("alignment") != std::string::npos);
  cfg.alignment = 64;
  cfg.buffer_size = 0;
  CHECK(!BufferPool::create(cfg, nullptr, nullptr, "bad").ok());
}

TEST_CASE("buffer pool: threads taking and returning buffers never share one") {
  BufferPoolConfig cfg;
  cfg.buffer_size = 256;
  cfg.buffers_per_chunk = 16;
  auto pool = make_pool(cfg, nullptr);
  std::atomic<int> clashes{0};
  auto worker = [&](unsigned char mark) {
    for (int i = 0; i < 20000; ++i) {
      PoolBuffer* b = pool->get().value();
      auto* p = static_cast<unsigned char*>(b->data);
      std::memset(p, mark, 256);
      for (int k = 0; k < 256; k += 37)
        if (p[k] != mark) clashes.fetch_add(1);
      pool->put(b);
    }
  };
  std::thread t1(worker, 1), t2(worker, 2);
  t1.join();
  t2.join();
  CHECK(clashes.load() == 0);
  CHECK(pool->stats().in_use == 0);
}

// A fake driver: pinned memory is plain heap memory, flags and frees are recorded.
struct FakeDriver {
  static inline unsigned last_flags = 0;
  static inline int allocs = 0, frees = 0;
  static inline int fail_with = 0;
  static int host_alloc(void** pp, size_t bytes, unsigned flags) {
    if (fail_with != 0) return fail_with;
    last_flags = flags;
    ++allocs;
    *pp = std::aligned_alloc(4096, bytes);
    return 0;
  }
  static int free_host(void* p) {
    ++frees;
    std::free(p);
    return 0;
  }
};

TEST_CASE("cuda pinned allocator: chunks come from cuMemHostAlloc and go back to cuMemFreeHost") {
  cuda::DriverApi api;
  api.mem_host_alloc = &FakeDriver::host_alloc;
  api.mem_free_host = &FakeDriver::free_host;
  CudaPinnedAllocator alloc(api);
  FakeDriver::allocs = FakeDriver::frees = 0;
  {
    BufferPoolConfig cfg;
    cfg.buffer_size = 1 << 16;
    cfg.buffers_per_chunk = 4;
    auto pool = make_pool(cfg, nullptr, &alloc);
    std::vector<PoolBuffer*> got;
    for (int i = 0; i < 6; ++i) got.push_back(pool->get().value());
    CHECK(FakeDriver::allocs == 2);
    CHECK(FakeDriver::last_flags ==
          (cuda::kHostAllocPortable | cuda::kHostAllocDeviceMap));
    for (PoolBuffer* b : got) pool->put(b);
  }
  CHECK(FakeDriver::frees == 2);

  FakeDriver::fail_with = cuda::kErrorInvalidContext;
  auto r = alloc.alloc(4096);
  FakeDriver::fail_with = 0;
  REQUIRE(!r.ok());
  CHECK(r.error().message.find("no current CUDA context") != std::string::npos);

  cuda::DriverApi empty;
  CudaPinnedAllocator none(empty);
  auto u = none.alloc(4096);
  REQUIRE(!u.ok());
  CHECK(u.error().status == Status::Unsupported);
}

}  // namespace
}  // namespace torus::mem
