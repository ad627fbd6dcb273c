// Claiming and releasing lanes; arming the consumer's rings together.
#include "transports/shm/shm_lanes.h"

namespace torus::shm {

// Ordering with a consumer going to sleep (all seq_cst): the producer raises lanes_used,
// then claims positions on its lane (the tail CAS), then loads sleeping; the consumer stores
// sleeping, then loads lanes_used, then every lane's tail. A consumer whose load of
// lanes_used missed the new lane comes before the raise in the single order of seq_cst
// operations, so its store of sleeping does too, and the producer's load sees it: it wakes.
LaneClaim LaneClaim::claim(const Segment& seg, pid_t pid) noexcept {
  LaneClaim c;
  const uint32_t lanes = seg.geometry().lanes;
  for (uint32_t i = 0; i < lanes; ++i) {
    std::atomic<int32_t>& owner = seg.lane_header(i)->owner;
    int32_t free = 0;
    if (owner.load(std::memory_order_relaxed) != 0 ||
        !owner.compare_exchange_strong(free, static_cast<int32_t>(pid),
                                       std::memory_order_seq_cst))
      continue;
    std::atomic<uint32_t>& used = seg.header()->lanes_used;
    uint32_t u = used.load(std::memory_order_seq_cst);
    while (u < i + 1 && !used.compare_exchange_weak(u, i + 1, std::memory_order_seq_cst)) {
    }
    c.owner_ = &owner;
    c.index_ = static_cast<int>(i);
    return c;
  }
  return c;
}

LaneClaim& LaneClaim::operator=(LaneClaim&& o) noexcept {
  if (this != &o) {
    release();
    owner_ = o.owner_;
    index_ = o.index_;
    o.owner_ = nullptr;
  }
  return *this;
}

void LaneClaim::release() noexcept {
  if (owner_ == nullptr) return;
  // Release: our publishes come before the next owner's claims on the lane.
  owner_->store(0, std::memory_order_release);
  owner_ = nullptr;
}

ConsumerRings::ConsumerRings(const Segment& seg)
    : shared_(seg.ring()), used_(&seg.header()->lanes_used),
      sleeping_(&seg.header()->sleeping) {
  lanes_.reserve(seg.geometry().lanes);
  for (uint32_t i = 0; i < seg.geometry().lanes; ++i)
    lanes_.emplace_back(seg.ring(static_cast<int>(i)));
}

bool ConsumerRings::any_published() noexcept {
  if (shared_.peek() != nullptr) return true;
  for (uint32_t i = 0, n = used(); i < n; ++i)
    if (lanes_[i].peek() != nullptr) return true;
  return false;
}

bool ConsumerRings::arm() noexcept {
  for (FifoReader& r : lanes_) r.publish_released();
  if (!shared_.arm()) return false;  // stores sleeping (seq_cst), checks the shared tail
  for (uint32_t i = 0, n = used(std::memory_order_seq_cst); i < n; ++i) {
    if (!lanes_[i].drained()) {
      sleeping_->store(0, std::memory_order_relaxed);
      return false;
    }
  }
  return true;
}

}  // namespace torus::shm
