// Pools of fixed-size buffers carved from large chunks that are allocated and registered
// once: bounce buffers for transports that copy (eager sends, unexpected receives), pinned
// host buffers for the GPU staging pipeline. Taking and returning a buffer is a pop and a
// push on a free list: no allocation, no registration, no system call on that path.
//
// Chunks belong to the pool and are never unmapped while it lives, so their registrations
// cannot go stale and need no registration cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "memory/rcache.h"

namespace torus::mem {

// Where a pool's chunks come from: anonymous mappings (host), or pinned host memory from the
// CUDA driver (cuda_pinned_allocator.h). free() gets exactly what alloc() returned.
class ChunkAllocator {
 public:
  virtual ~ChunkAllocator() = default;
  virtual Result<void*> alloc(size_t bytes) = 0;
  virtual void free(void* p, size_t bytes) noexcept = 0;
  virtual const char* name() const noexcept = 0;
};

// Page-aligned anonymous private mappings (the default).
ChunkAllocator& host_chunk_allocator() noexcept;

struct BufferPoolConfig {
  size_t buffer_size = 8192;      // usable bytes per buffer
  size_t alignment = 64;          // of every buffer's start; a power of two
  size_t buffers_per_chunk = 64;  // growth step
  size_t max_buffers = 0;         // 0: unbounded; else get() fails once this many are out
  uint32_t access = 0;            // passed to the registrar
};

// One buffer of the pool. `handle` is the registrar's handle of the chunk that holds it
// (nullptr without a registrar); `chunk_start` lets a transport compute the offset of `data`
// inside that registration.
struct PoolBuffer {
  void* data = nullptr;
  void* handle = nullptr;
  uintptr_t chunk_start = 0;
  PoolBuffer* next_free = nullptr;  // the pool's free list
};

struct BufferPoolStats {
  uint64_t chunks = 0;
  uint64_t buffers = 0;     // carved so far
  uint64_t in_use = 0;
  uint64_t peak_in_use = 0;
  uint64_t gets = 0;
  uint64_t exhausted = 0;   // get() calls refused at max_buffers or by a failed growth
};

class BufferPool {
 public:
  // registrar may be nullptr (unregistered buffers); allocator nullptr means host memory.
  // Nothing is allocated until the first get().
  static Result<std::unique_ptr<BufferPool>> create(const BufferPoolConfig& config,
                                                    Registrar* registrar,
                                                    ChunkAllocator* allocator, std::string name);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer, growing the pool by a chunk when none is free. Fails with NoResource at
  // max_buffers and with the allocator's or registrar's error when growth fails; the pool
  // stays usable either way.
  Result<PoolBuffer*> get();
  // Gives a buffer from this pool back (any thread).
  void put(PoolBuffer* buffer) noexcept;

  const BufferPoolConfig& config() const noexcept { return config_; }
  BufferPoolStats stats() const;
  const std::string& name() const noexcept { return name_; }

 private:
  struct Chunk {
    void* base = nullptr;
    size_t bytes = 0;
    void* handle = nullptr;
    std::unique_ptr<PoolBuffer[]> buffers;
  };
  BufferPool(const BufferPoolConfig& config, Registrar* registrar, ChunkAllocator& allocator,
             std::string name);
  Status grow();  // under mutex_

  const BufferPoolConfig config_;
  const size_t stride_;  // buffer_size rounded up to the alignment
  Registrar* const registrar_;
  ChunkAllocator& allocator_;
  const std::string name_;
  mutable std::mutex mutex_;
  std::vector<Chunk> chunks_;
  PoolBuffer* free_ = nullptr;
  BufferPoolStats stats_;
};

}  // namespace torus::mem
