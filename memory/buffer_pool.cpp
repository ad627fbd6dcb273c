// The buffer pool: chunk growth and registration on the slow path, a locked free list on the
// fast one (one uncontended lock: a worker and its progress thread may both return buffers).
#include "memory/buffer_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include "core/base/log.h"

namespace torus::mem {
namespace {

class HostChunkAllocator final : public ChunkAllocator {
 public:
  Result<void*> alloc(size_t bytes) override {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return make_error(Status::NoMemory, std::string("mmap of a pool chunk failed: ") +
                                              std::strerror(errno));
    return p;
  }
  void free(void* p, size_t bytes) noexcept override { munmap(p, bytes); }
  const char* name() const noexcept override { return "host"; }
};

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

}  // namespace

ChunkAllocator& host_chunk_allocator() noexcept {
  // Never destroyed: pools owned by longer-lived statics (libmpi's runtime, torn down at
  // exit() when MPI_Finalize was never called) free their chunks through it.
  static auto* a = new HostChunkAllocator;
  return *a;
}

Result<std::unique_ptr<BufferPool>> BufferPool::create(const BufferPoolConfig& config,
                                                       Registrar* registrar,
                                                       ChunkAllocator* allocator,
                                                       std::string name) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (config.buffer_size == 0 || config.buffers_per_chunk == 0)
    return make_error(Status::InvalidParam, "buffer pool '" + name +
                                                "': buffer size and buffers per chunk must "
                                                "be positive");
  if (!std::has_single_bit(config.alignment) || config.alignment > page)
    return make_error(Status::InvalidParam,
                      "buffer pool '" + name + "': alignment " +
                          std::to_string(config.alignment) +
                          " is not a power of two up to the page size");
  return std::unique_ptr<BufferPool>(new BufferPool(
      config, registrar, allocator ? *allocator : host_chunk_allocator(), std::move(name)));
}

BufferPool::BufferPool(const BufferPoolConfig& config, Registrar* registrar,
                       ChunkAllocator& allocator, std::string name)
    : config_(config),
      stride_(round_up(config.buffer_size, config.alignment)),
      registrar_(registrar),
      allocator_(allocator),
      name_(std::move(name)) {}

BufferPool::~BufferPool() {
  if (stats_.in_use != 0)
    TORUS_WARN("buffer pool '%s' destroyed with %llu buffers still in use", name_.c_str(),
               static_cast<unsigned long long>(stats_.in_use));
  for (Chunk& c : chunks_) {
    if (registrar_ != nullptr) registrar_->dereg(c.handle);
    allocator_.free(c.base, c.bytes);
  }
}

Status BufferPool::grow() {
  size_t count = config_.buffers_per_chunk;
  if (config_.max_buffers != 0) {
    if (stats_.buffers >= config_.max_buffers) return Status::NoResource;
    count = std::min<size_t>(count, config_.max_buffers - stats_.buffers);
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  Chunk c;
  c.bytes = round_up(stride_ * count, page);
  auto mem = allocator_.alloc(c.bytes);
  if (!mem.ok()) {
    TORUS_WARN("buffer pool '%s': %s", name_.c_str(), mem.error().message.c_str());
    return mem.error().status;
  }
  c.base = mem.value();
  if (registrar_ != nullptr) {
    auto h = registrar_->reg(c.base, c.bytes, config_.access);
    if (!h.ok()) {
      TORUS_WARN("buffer pool '%s': registering a %zu-byte chunk failed: %s", name_.c_str(),
                 c.bytes, h.error().message.c_str());
      allocator_.free(c.base, c.bytes);
      return h.error().status;
    }
    c.handle = h.value();
  }
  // Whatever page rounding left over becomes buffers too.
  count = c.bytes / stride_;
  if (config_.max_buffers != 0)
    count = std::min<size_t>(count, config_.max_buffers - stats_.buffers);
  c.buffers = std::make_unique<PoolBuffer[]>(count);
  const auto start = reinterpret_cast<uintptr_t>(c.base);
  for (size_t i = count; i-- > 0;) {
    PoolBuffer& b = c.buffers[i];
    b.data = static_cast<std::byte*>(c.base) + i * stride_;
    b.handle = c.handle;
    b.chunk_start = start;
    b.next_free = free_;
    free_ = &b;
  }
  stats_.buffers += count;
  ++stats_.chunks;
  chunks_.push_back(std::move(c));
  return Status::Ok;
}

Result<PoolBuffer*> BufferPool::get() {
  std::lock_guard lock(mutex_);
  ++stats_.gets;
  if (free_ == nullptr) {
    if (Status s = grow(); s != Status::Ok) {
      ++stats_.exhausted;
      return make_error(s, "buffer pool '" + name_ + "' has no free buffer (" +
                               std::to_string(stats_.in_use) + " in use)");
    }
  }
  PoolBuffer* b = free_;
  free_ = b->next_free;
  b->next_free = nullptr;
  if (++stats_.in_use > stats_.peak_in_use) stats_.peak_in_use = stats_.in_use;
  return b;
}

void BufferPool::put(PoolBuffer* buffer) noexcept {
  std::lock_guard lock(mutex_);
  TORUS_ASSERT(stats_.in_use > 0);
  buffer->next_free = free_;
  free_ = buffer;
  --stats_.in_use;
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace torus::mem
