// The self iface's active-message queue: sends append records, progress() consumes them.
// Records live in fixed-size chunks that never move, so a handler may send (append) while
// the record it is reading stays valid; a byte bound turns growth into back-pressure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "core/base/status.h"
#include "transports/transport.h"

namespace torus::self {

class AmQueue final {
 public:
  // Chunk size bounds the largest record (header + data); it is 16x the 64 KiB max_bcopy so
  // the space a chunk wastes at its end stays small.
  static constexpr size_t kChunkSize = size_t{1} << 20;
  static constexpr size_t kRecordHeader = 8;  // keeps the data 8-byte aligned
  static constexpr size_t kMaxRecordData = kChunkSize - kRecordHeader;

  // `max_bytes`: queued bytes (headers included) beyond which reserve() says NoResource.
  explicit AmQueue(size_t max_bytes) noexcept : max_bytes_(max_bytes) {}
  AmQueue(const AmQueue&) = delete;
  AmQueue& operator=(const AmQueue&) = delete;

  // Room for one record of up to `max_length` data bytes (<= kMaxRecordData). Returns the
  // data area, or nullptr with *status = NoResource (over the bound) or NoMemory. Nothing is
  // queued until commit(); a reserve() without commit() is simply forgotten.
  [[nodiscard]] std::byte* reserve(size_t max_length, Status* status) noexcept;
  // Queues the record last reserved, with `length` <= the reserved max_length.
  void commit(tl::AmId id, size_t length) noexcept;

  bool empty() const noexcept { return records_ == 0; }
  size_t records() const noexcept { return records_; }
  size_t queued_bytes() const noexcept { return queued_bytes_; }

  // Calls fn(id, data, length) on the oldest record, then drops it. fn may reserve/commit.
  template <typename Fn>
  void pop(Fn&& fn);

 private:
  struct FreeDeleter {
    void operator()(std::byte* p) const noexcept { std::free(p); }
  };
  using ChunkMem = std::unique_ptr<std::byte, FreeDeleter>;
  struct Chunk {
    ChunkMem mem;
    size_t read = 0;   // next record to deliver
    size_t write = 0;  // end of committed records
  };
  struct RecordHeader {
    uint32_t length;
    uint8_t id;
    uint8_t pad[3];
  };
  static_assert(sizeof(RecordHeader) == kRecordHeader);

  static constexpr size_t padded(size_t n) noexcept { return (n + 7) & ~size_t{7}; }
  void drop_front_record(Chunk& front, size_t record_bytes) noexcept;

  size_t max_bytes_;
  size_t queued_bytes_ = 0;
  size_t records_ = 0;
  // Oldest chunk first. A deque keeps references to the front valid across push_back.
  std::deque<Chunk> chunks_;
  std::vector<ChunkMem> spare_;  // a few chunks kept for reuse, so a steady flow mallocs nothing
};

template <typename Fn>
void AmQueue::pop(Fn&& fn) {
  Chunk& front = chunks_.front();
  std::byte* rec = front.mem.get() + front.read;
  RecordHeader h;
  std::memcpy(&h, rec, sizeof h);
  fn(static_cast<tl::AmId>(h.id), static_cast<const void*>(rec + kRecordHeader),
     static_cast<size_t>(h.length));
  drop_front_record(front, kRecordHeader + padded(h.length));
}

}  // namespace torus::self
