// The lock-free multi-producer single-consumer FIFO that lives in each receiver's segment:
// a writer (any process that mapped the segment) and the reader (its owner).
//
// Protocol (one consumer). Positions grow without bound modulo 2^32; cell (pos & mask) serves
// position pos. Two counters in the header: tail (next position to claim, producers only) and
// released (positions below it are consumed, consumer only).
//  - producer: t = tail; the cell is free when t - released < size. Each writer caches
//    released and reads the shared word (acquire) only when its copy says full, so
//    a producer does not touch a line the consumer writes while the ring has room; still
//    full: NoResource. CAS tail t -> t+1 claims t (a failed CAS means another producer took
//    it: retry with the new tail). The owner of t fills length/id/flags/payload, then
//    publishes seq = t+1.
//  - consumer: cell[head].seq == head+1 (acquire) means published; it reads the cell and
//    advances its private head. It never writes a cell: at the end of each poll it stores
//    released = head (release), once for the whole batch. A cell of the previous lap holds
//    seq = pos+1-size, never mistaken for pos+1.
//    So a message moves one cell line from producer to consumer and nothing comes back per
//    message (the Vyukov sequence this replaces had the consumer write every cell back and
//    the producer read it before claiming: a second transfer and a load miss per message).
//  - released must be current whenever the consumer may stop polling, or producers could
//    find the ring full of consumed cells while it sleeps: poll stores it after every batch
//    and arm() stores it again.
//  - sleeping: the consumer stores sleeping = 1 then loads tail (both seq_cst) and sleeps only
//    when tail == head: nothing claimed, published or not. The producer's claiming CAS on
//    tail (seq_cst) is followed by a load of sleeping: one of them sees the other, so a
//    message is never left behind a sleeping consumer. A producer that saw sleeping set
//    flips it 1 -> 0 after publishing; the one that wins sends the wake-up datagram. So the
//    publish is a plain release store: the full barrier is the CAS, which comes before the
//    cell is written, and the sender does not wait for the cell's line to reach it (an
//    exchange after the writes did, once per message).
// Nothing blocks: a full ring is NoResource. A producer that dies between claim and publish
// stalls the ring (positions after it wait forever); see README.md.
#pragma once

#include <atomic>
#include <cstdint>

#include "transports/shm/shm_placement.h"
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

// A plain prefetch that the compiler keeps: GCC 12 deletes a loop whose body is only
// __builtin_prefetch when it does not unroll it first (a loop without side effects).
inline void prefetch_line(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// One ring as producers and the consumer see it: the segment's shared ring or a lane.
struct RingView {
  std::atomic<uint32_t>* tail = nullptr;
  std::atomic<uint32_t>* released = nullptr;
  std::atomic<uint32_t>* sleeping = nullptr;  // the segment's, whichever ring
  Cell* cells = nullptr;
  std::byte* segs = nullptr;
  uint32_t size = 0;
  uint32_t seg_size = 0;
};

inline RingView shared_ring(SegmentHeader* h, Cell* cells, std::byte* segs, uint32_t size,
                            uint32_t seg_size) noexcept {
  return RingView{&h->tail, &h->released, &h->sleeping, cells, segs, size, seg_size};
}

class FifoWriter final {
 public:
  struct Slot {
    Cell* cell = nullptr;
    std::byte* seg = nullptr;  // this cell's eager segment
    uint32_t pos = 0;
    bool consumer_armed = false;  // sleeping was set after the claim: publish() wakes
  };

  FifoWriter() = default;
  FifoWriter(const RingView& ring, int32_t sender_pid) noexcept
      : tail_(ring.tail), sleeping_(ring.sleeping), released_(ring.released),
        cells_(ring.cells), segs_(ring.segs), mask_(ring.size - 1), size_(ring.size),
        seg_size_(ring.seg_size), sender_(sender_pid) {}

  uint32_t seg_size() const noexcept { return seg_size_; }

  // Claims the next cell; false when the ring is full (or a corrupt tail keeps moving away).
  bool claim(Slot& slot) noexcept {
    uint32_t pos = tail_->load(std::memory_order_relaxed);
    for (int tries = 0; tries < kMaxClaimTries; ++tries) {
      // Unsigned distance: a cached value any number of laps old (other producers may have
      // sent billions of messages meanwhile) still reads as "look again", never as room.
      if (pos - released_seen_ >= size_) {
        // Full as far as we knew: look at how far the consumer got. Acquire pairs with its
        // release: its reads of the cells below `released` are done before we overwrite them.
        released_seen_ = released_->load(std::memory_order_acquire);
        if (pos - released_seen_ >= size_) return false;
      }
      Cell* cell = &cells_[pos & mask_];
      prefetch_for_write(cell);
      // seq_cst: with the load of sleeping after it, the producer's half of the sleep
      // handshake (see the top of this file).
      if (tail_->compare_exchange_weak(pos, pos + 1, std::memory_order_seq_cst,
                                       std::memory_order_relaxed)) {
        slot.cell = cell;
        slot.seg = segs_ + static_cast<size_t>(pos & mask_) * seg_size_;
        slot.pos = pos;
        slot.consumer_armed = sleeping_->load(std::memory_order_seq_cst) != 0;
        return true;
      }
    }
    return false;
  }

  // Asks for the first `lines` lines of each of the `ahead` cells after `pos` in exclusive
  // state, so that a burst of sends keeps several line transfers in flight instead of one.
  // Cells the consumer has not released yet are left alone: it may still be reading them.
  void prefetch_ahead(uint32_t pos, uint32_t ahead, uint32_t lines) noexcept {
    for (uint32_t i = 1; i <= ahead; ++i) {
      if (pos + i - released_seen_ >= size_) break;
      const auto* cell = reinterpret_cast<const std::byte*>(&cells_[(pos + i) & mask_]);
      for (uint32_t l = 0; l < lines; ++l) prefetch_for_write(cell + l * kCacheLine);
    }
  }

  // Times one load of the consumer's `released` line (shm_placement.h). Returns the ticks
  // when the consumer wrote it since this writer last read it (the line then came from the
  // consumer's core), else 0: a line this core still holds says nothing of the path between
  // the cores. Reads a line the consumer writes: for occasional use.
  uint64_t time_released_line() noexcept {
    const uint64_t t0 = line_clock_begin();
    // Acquire, as claim() reads it: the value also refreshes the lower bound claim uses.
    const uint32_t released = released_->load(std::memory_order_acquire);
    const uint64_t t1 = line_clock_end();
    const bool moved = released != released_seen_;
    released_seen_ = released;
    return moved && t1 > t0 ? t1 - t0 : 0;
  }

  // Publishes a claimed cell. Returns true when the consumer sleeps and this caller must send
  // the wake-up (exactly one producer gets true per sleep).
  bool publish(const Slot& slot, uint8_t am_id, uint8_t flags, uint32_t length,
               uint16_t seg_offset = 0) noexcept {
    Cell* cell = slot.cell;
    cell->length = length;
    cell->seg_offset = seg_offset;
    cell->sender = sender_;
    cell->am_id = am_id;
    cell->flags = flags;
    cell->seq.store(slot.pos + 1, std::memory_order_release);
    return slot.consumer_armed && sleeping_->exchange(0, std::memory_order_seq_cst) == 1;
  }

 private:
  static constexpr int kMaxClaimTries = 1024;
  std::atomic<uint32_t>* tail_ = nullptr;
  std::atomic<uint32_t>* sleeping_ = nullptr;
  std::atomic<uint32_t>* released_ = nullptr;
  Cell* cells_ = nullptr;
  std::byte* segs_ = nullptr;
  uint32_t mask_ = 0;
  uint32_t size_ = 0;
  uint32_t released_seen_ = 0;  // `released` when last read: a lower bound of it
  uint32_t seg_size_ = 0;
  int32_t sender_ = 0;
};

class FifoReader final {
 public:
  FifoReader() = default;
  explicit FifoReader(const RingView& ring) noexcept
      : sleeping_(ring.sleeping), released_(ring.released), tail_(ring.tail), cells_(ring.cells),
        segs_(ring.segs), mask_(ring.size - 1), seg_size_(ring.seg_size) {}

  // The next published cell, or nullptr.
  Cell* peek() const noexcept {
    Cell* cell = &cells_[head_ & mask_];
    return cell->seq.load(std::memory_order_acquire) == head_ + 1 ? cell : nullptr;
  }
  // For a consumer far from its producers (ShmIface decides), called while the head cell is
  // empty: asks for the lines the next message will most likely fill besides line 0. Line 0
  // carries the sequence word, and the other lines were otherwise asked for only once it was
  // seen: two cross-core fetches one after the other (~200 ns each far), where OMPI's fast
  // boxes pay one. Asked for on every empty poll, they are refetched as soon as the
  // producer's stores take them away, so they arrive with line 0 or before it. Near, the
  // lines the producer must take back cost more than the wait saved.
  void prefetch_head() const noexcept {
    const char* cell = reinterpret_cast<const char*>(&cells_[head_ & mask_]);
    for (size_t off = kCacheLine; off < kCellSize; off += kCacheLine) prefetch_line(cell + off);
    const char* seg = reinterpret_cast<const char*>(segment_of_head());
    for (uint32_t off = 0; off < seg_span_; off += kCacheLine) prefetch_line(seg + off);
  }
  // The segment bytes (alignment offset included) the message just read used, 0 for an
  // inline one: the next message's segment is prefetched as if it were the same. Not beyond
  // kWaitSegSpan: lines the producer is still writing bounce between the cores when asked
  // for meanwhile (a 1 KiB allreduce far: 1.04 against 0.70 us without).
  void note_segment_span(uint32_t bytes) noexcept {
    seg_span_ = bytes <= kWaitSegSpan ? bytes : 0;
  }

  std::byte* segment_of_head() const noexcept {
    return segs_ + static_cast<size_t>(head_ & mask_) * seg_size_;
  }
  // Done with the cell returned by peek(); producers may reuse it after publish_released().
  void release() noexcept { ++head_; }
  // Hands every released cell back to the producers: once per batch of release() calls, and
  // before the consumer can stop polling.
  void publish_released() noexcept { released_->store(head_, std::memory_order_release); }

  // arm(): true when safe to sleep (nothing claimed beyond what was consumed: a message
  // being written counts as work); sleeping stays set in that case. A consumer of several
  // rings sharing one sleeping word sets it once and asks each ring drained() instead.
  bool arm() noexcept {
    publish_released();
    sleeping_->store(1, std::memory_order_seq_cst);
    if (drained()) return true;
    sleeping_->store(0, std::memory_order_relaxed);
    return false;
  }
  void disarm() noexcept { sleeping_->store(0, std::memory_order_relaxed); }
  // Nothing claimed beyond what was consumed; seq_cst, after the store of sleeping.
  bool drained() const noexcept { return tail_->load(std::memory_order_seq_cst) == head_; }
  // Positions ever consumed: a ring never used reads 0.
  uint32_t head() const noexcept { return head_; }

 private:
  std::atomic<uint32_t>* sleeping_ = nullptr;
  std::atomic<uint32_t>* released_ = nullptr;
  std::atomic<uint32_t>* tail_ = nullptr;
  Cell* cells_ = nullptr;
  std::byte* segs_ = nullptr;
  static constexpr uint32_t kWaitSegSpan = 640;  // a 512-byte payload at any offset
  uint32_t head_ = 0;  // private: only the consumer needs it
  uint32_t seg_span_ = 0;
  uint32_t mask_ = 0;
  uint32_t seg_size_ = 0;
};

// Formats a freshly created ring (cell i free for position i, tail 0). Owner only.
void fifo_init(const RingView& ring) noexcept;

}  // namespace torus::shm
