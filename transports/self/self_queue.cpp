// AmQueue: chunk management and the back-pressure bound.
#include "transports/self/self_queue.h"

#include <cstring>

#include "core/base/log.h"

namespace torus::self {
namespace {

// Spares kept after a burst drains; beyond these, chunks go back to malloc.
constexpr size_t kMaxSpareChunks = 2;

}  // namespace

std::byte* AmQueue::reserve(size_t max_length, Status* status) noexcept {
  TORUS_ASSERT(max_length <= kMaxRecordData);
  const size_t need = kRecordHeader + padded(max_length);
  // An empty queue always accepts one record, so a bound smaller than a record cannot wedge it.
  if (records_ != 0 && queued_bytes_ + need > max_bytes_) {
    *status = Status::NoResource;
    return nullptr;
  }
  if (chunks_.empty() || kChunkSize - chunks_.back().write < need) {
    ChunkMem mem;
    if (!spare_.empty()) {
      mem = std::move(spare_.back());
      spare_.pop_back();
    } else {
      mem.reset(static_cast<std::byte*>(std::aligned_alloc(64, kChunkSize)));
      if (!mem) {
        TORUS_ERROR("self: cannot allocate a %zu-byte queue chunk (%zu bytes queued)",
                    kChunkSize, queued_bytes_);
        *status = Status::NoMemory;
        return nullptr;
      }
    }
    chunks_.push_back(Chunk{std::move(mem), 0, 0});
  }
  Chunk& back = chunks_.back();
  return back.mem.get() + back.write + kRecordHeader;
}

void AmQueue::commit(tl::AmId id, size_t length) noexcept {
  Chunk& back = chunks_.back();
  const size_t bytes = kRecordHeader + padded(length);
  TORUS_ASSERT(back.write + bytes <= kChunkSize);
  RecordHeader h{static_cast<uint32_t>(length), id, {0, 0, 0}};
  std::memcpy(back.mem.get() + back.write, &h, sizeof h);
  back.write += bytes;
  queued_bytes_ += bytes;
  ++records_;
}

void AmQueue::drop_front_record(Chunk& front, size_t record_bytes) noexcept {
  front.read += record_bytes;
  queued_bytes_ -= record_bytes;
  --records_;
  if (front.read != front.write) return;
  if (chunks_.size() == 1) {
    // The only chunk is drained and no handler is reading it any more: rewind in place.
    front.read = front.write = 0;
    return;
  }
  if (spare_.size() < kMaxSpareChunks) spare_.push_back(std::move(front.mem));
  chunks_.pop_front();
}

}  // namespace torus::self
