// The lock-free multi-producer single-consumer FIFO that lives in each receiver's segment:
// a writer (any process that mapped the segment) and the reader (its owner).
//
// Protocol (Vyukov's bounded queue, one consumer). Cell i starts with seq = i. Positions grow
// without bound modulo 2^32; cell (pos & mask) serves position pos.
//  - producer: t = tail; if cell[t].seq == t the cell is free for t: CAS tail t -> t+1 claims
//    it (a failed CAS means another producer took t: retry with the new tail); if seq is
//    behind t, the previous lap's message is still unconsumed: the ring is full, NoResource.
//    The owner of position t fills length/id/flags/payload, then publishes seq = t+1.
//  - consumer: cell[head].seq == head+1 (acquire) means published; it reads the cell, then
//    frees it for the next lap with seq = head + size (release) and advances its private head.
//  - sleeping: the consumer stores sleeping = 1 then re-checks cell[head] (both seq_cst); the
//    producer publishes with a seq_cst exchange then loads sleeping. One of them sees the
//    other, so a message is never left behind a sleeping consumer; the producer that flips
//    sleeping 1 -> 0 sends the one wake-up datagram.
// Nothing blocks: a full ring is NoResource. A producer that dies between claim and publish
// stalls the ring (positions after it wait forever); see README.md.
#pragma once

#include <atomic>
#include <cstdint>

#include "transports/shm/shm_wire.h"

namespace torus::shm {

// Asks for the line in exclusive state at once: the consumer is polling it, so a plain load
// would fetch it shared and the store after would need a second round trip to own it.
inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

class FifoWriter final {
 public:
  struct Slot {
    Cell* cell = nullptr;
    std::byte* seg = nullptr;  // this cell's eager segment
    uint32_t pos = 0;
  };

  FifoWriter() = default;
  FifoWriter(SegmentHeader* header, Cell* cells, std::byte* segs, uint32_t fifo_size,
             uint32_t seg_size, int32_t sender_pid) noexcept
      : tail_(&header->tail), sleeping_(&header->sleeping), cells_(cells), segs_(segs),
        mask_(fifo_size - 1), seg_size_(seg_size), sender_(sender_pid) {}

  uint32_t seg_size() const noexcept { return seg_size_; }

  // Claims the next cell; false when the ring is full (or a corrupt tail keeps moving away).
  bool claim(Slot& slot) noexcept {
    uint32_t pos = tail_->load(std::memory_order_relaxed);
    for (int tries = 0; tries < kMaxClaimTries; ++tries) {
      Cell* cell = &cells_[pos & mask_];
      prefetch_for_write(cell);
      // Acquire pairs with the consumer's release: its reads of the last lap are done.
      const uint32_t seq = cell->seq.load(std::memory_order_acquire);
      const int32_t dif = static_cast<int32_t>(seq - pos);
      if (dif == 0) {
        if (tail_->compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          slot.cell = cell;
          slot.seg = segs_ + static_cast<size_t>(pos & mask_) * seg_size_;
          slot.pos = pos;
          return true;
        }
      } else if (dif < 0) {
        return false;
      } else {
        pos = tail_->load(std::memory_order_relaxed);
      }
    }
    return false;
  }

  // Publishes a claimed cell. Returns true when the consumer sleeps and this caller must send
  // the wake-up (exactly one producer gets true per sleep).
  bool publish(const Slot& slot, uint8_t am_id, uint8_t flags, uint32_t length) noexcept {
    Cell* cell = slot.cell;
    cell->length = length;
    cell->sender = sender_;
    cell->am_id = am_id;
    cell->flags = flags;
    // An exchange is a full barrier on x86 (and seq_cst everywhere): it orders the publish
    // before the load of sleeping, which the consumer's arm() relies on.
    cell->seq.exchange(slot.pos + 1, std::memory_order_seq_cst);
    return sleeping_->load(std::memory_order_seq_cst) != 0 &&
           sleeping_->exchange(0, std::memory_order_seq_cst) == 1;
  }

 private:
  static constexpr int kMaxClaimTries = 1024;
  std::atomic<uint32_t>* tail_ = nullptr;
  std::atomic<uint32_t>* sleeping_ = nullptr;
  Cell* cells_ = nullptr;
  std::byte* segs_ = nullptr;
  uint32_t mask_ = 0;
  uint32_t seg_size_ = 0;
  int32_t sender_ = 0;
};

class FifoReader final {
 public:
  FifoReader() = default;
  FifoReader(SegmentHeader* header, Cell* cells, std::byte* segs, uint32_t fifo_size,
             uint32_t seg_size) noexcept
      : sleeping_(&header->sleeping), cells_(cells), segs_(segs), mask_(fifo_size - 1),
        size_(fifo_size), seg_size_(seg_size) {}

  // The next published cell, or nullptr.
  Cell* peek() const noexcept {
    Cell* cell = &cells_[head_ & mask_];
    return cell->seq.load(std::memory_order_acquire) == head_ + 1 ? cell : nullptr;
  }
  std::byte* segment_of_head() const noexcept {
    return segs_ + static_cast<size_t>(head_ & mask_) * seg_size_;
  }
  // Frees the cell returned by peek() for the producers' next lap.
  void release() noexcept {
    cells_[head_ & mask_].seq.store(head_ + size_, std::memory_order_release);
    ++head_;
  }

  // arm(): true when safe to sleep (nothing published); sleeping stays set in that case.
  bool arm() noexcept {
    sleeping_->store(1, std::memory_order_seq_cst);
    if (cells_[head_ & mask_].seq.load(std::memory_order_seq_cst) != head_ + 1) return true;
    sleeping_->store(0, std::memory_order_relaxed);
    return false;
  }
  void disarm() noexcept { sleeping_->store(0, std::memory_order_relaxed); }

 private:
  std::atomic<uint32_t>* sleeping_ = nullptr;
  Cell* cells_ = nullptr;
  std::byte* segs_ = nullptr;
  uint32_t head_ = 0;  // private: only the consumer needs it
  uint32_t mask_ = 0;
  uint32_t size_ = 0;
  uint32_t seg_size_ = 0;
};

// Formats a freshly created ring (cell i free for position i, tail 0). Owner only.
void fifo_init(SegmentHeader* header, Cell* cells, uint32_t fifo_size) noexcept;

}  // namespace torus::shm
