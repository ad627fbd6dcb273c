// Lanes (shm_wire.h): a producer's claim of one in a peer's segment, and the consumer's set
// of rings (its lanes and the shared ring) that it polls and arms together.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "transports/shm/shm_fifo.h"
#include "transports/shm/shm_segment.h"

namespace torus::shm {

// A producer's lane in a peer's segment, released (free for the next producer) when the
// claim ends. Must end while the segment is still mapped.
class LaneClaim final {
 public:
  LaneClaim() = default;
  // Claims the lowest free lane of `seg` for `pid`; an empty claim (index() < 0) when every
  // lane is taken. Raises lanes_used before returning, and so before any message on the
  // lane: a consumer about to sleep either polls the lane or is woken (shm_lanes.cpp).
  static LaneClaim claim(const Segment& seg, pid_t pid) noexcept;
  LaneClaim(LaneClaim&& o) noexcept : owner_(o.owner_), index_(o.index_) { o.owner_ = nullptr; }
  LaneClaim& operator=(LaneClaim&& o) noexcept;
  ~LaneClaim() { release(); }

  int index() const noexcept { return owner_ != nullptr ? index_ : -1; }
  // Frees the lane. Every message of ours in it was published (claim and publish happen in one
  // call), so the next owner continues the ring where we stopped.
  void release() noexcept;

 private:
  std::atomic<int32_t>* owner_ = nullptr;
  int index_ = -1;
};

// The consumer's rings: the shared one and its lanes.
class ConsumerRings final {
 public:
  ConsumerRings() = default;
  explicit ConsumerRings(const Segment& seg);

  FifoReader& shared() noexcept { return shared_; }
  FifoReader& lane(uint32_t i) noexcept { return lanes_[i]; }
  // Lanes some producer claimed so far: the ones worth polling. Bounded by the geometry
  // whatever a producer wrote.
  uint32_t used(std::memory_order order = std::memory_order_acquire) const noexcept {
    const uint32_t u = used_->load(order);
    return u < lanes_.size() ? u : static_cast<uint32_t>(lanes_.size());
  }
  // Any ring holds a published message.
  bool any_published() noexcept;
  // FifoReader::arm() over every ring: true when all are drained; sleeping stays set then.
  bool arm() noexcept;
  void disarm() noexcept { shared_.disarm(); }

 private:
  FifoReader shared_;
  std::vector<FifoReader> lanes_;
  std::atomic<uint32_t>* used_ = nullptr;
  std::atomic<uint32_t>* sleeping_ = nullptr;
};

}  // namespace torus::shm
