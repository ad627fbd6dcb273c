// Cooperative get: a large CMA get copied by both processes at once. One process_vm_readv
// runs at ~24 GB/s here, bound by the kernel's per-page work on one core rather than by
// memory (memcpy does ~47 GB/s), and in a rendezvous the sender's core sits idle waiting
// for the receiver's copy. So the initiator cuts the get into chunks, publishes a claim
// counter in its own segment (CoopSlot), tells the target (CoopRequest through the target's
// FIFO), and both claim chunks until none is left: the initiator reads its chunks with
// process_vm_readv, the target writes its own into the initiator with process_vm_writev.
//
// The target never has to answer: a target that is busy elsewhere, never polls, refuses the
// key or cannot write simply leaves the chunks to the initiator, which then copies everything
// itself at the plain single-copy rate. The initiator completes when every chunk the target
// claimed is counted done; only a target that dies holding a chunk fails the get (the peer's
// death fails the endpoint anyway). A slot is reused only after that, so a late request for an
// old job finds a newer generation and claims nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "transports/shm/shm_coop_policy.h"
#include "transports/shm/shm_wire.h"
#include "transports/transport.h"

namespace torus::shm {

class ShmIface;
class ShmEndpoint;

class Coop final {
 public:
  // `slots`: our own segment's kCoopSlots slots. `threshold`: smallest get always shared (0:
  // never share); from `adaptive` up to it, shared when CoopPolicy measures that it pays.
  Coop(ShmIface& iface, CoopSlot* slots, uint64_t threshold, uint64_t adaptive);
  Coop(const Coop&) = delete;
  Coop& operator=(const Coop&) = delete;

  // Whether to share a get of `length` bytes (asked once per get: it counts towards the
  // policy's measurements).
  bool wanted(size_t length) noexcept {
    if (threshold_ == 0 || (length < threshold_ && !policy_.in_range(length))) return false;
    return decide(length);
  }

  // Initiator. Ok or an error: finished now. InProgress: `comp` fires from poll().
  // NoResource: not started (no free slot, the peer's FIFO full, or a loopback peer): the
  // caller copies by itself.
  Status get(ShmEndpoint& ep, std::byte* local, size_t length, uint64_t remote_addr,
             const PackedRkey& key, tl::Completion* comp);
  // Completes the gets whose chunks are all copied; returns how many.
  unsigned poll();
  bool busy() const noexcept { return !ops_.empty(); }
  // The endpoint failed or is going away: its gets complete with `status` once the target no
  // longer holds a chunk (at once if the peer is dead).
  void fail_ops(ShmEndpoint& ep, Status status);
  // The endpoint is being destroyed: its gets complete now with Canceled, after waiting for
  // the chunk a live target may still be writing into their buffers.
  void forget_endpoint(ShmEndpoint& ep);

  // Target: a CoopRequest from `sender`. False when malformed (the caller drops the sender).
  bool on_request(const std::byte* seg, uint32_t length, int32_t sender);

  // Chunks this process copied for its peers' gets, and chunks peers copied for ours.
  uint64_t chunks_helped() const noexcept { return helped_; }
  uint64_t chunks_received() const noexcept { return received_; }

 private:
  struct Op {
    ShmEndpoint* ep = nullptr;
    tl::Completion* comp = nullptr;
    std::byte* local = nullptr;
    uint64_t remote_addr = 0;
    size_t length = 0;
    uint32_t chunk = 0;
    uint32_t chunks = 0;
    uint32_t slot = 0;
    uint32_t generation = 0;
    uint32_t claimed = 0;  // chunks claimed by anyone when the job closed
    uint32_t own = 0;      // of them, by us (copied or failed)
    Status status = Status::Ok;
  };

  // Takes the next chunk of job `generation` in `slot`, or -1 when none is left.
  static int64_t claim(CoopSlot& slot, uint32_t generation, uint32_t chunks) noexcept;
  // Copies what we can claim; returns the first copy error (0 if none).
  int copy_own(Op& op);
  // Ok when the target holds no chunk any more (orphans copied here), InProgress otherwise.
  Status settle(Op& op);
  void finish(Op& op);
  // Whether to share a get at or above the adaptive bound.
  bool decide(size_t length) noexcept;

  ShmIface& iface_;
  CoopSlot* slots_;
  uint64_t threshold_;
  CoopPolicy policy_;
  uint32_t next_generation_ = 1;
  std::vector<uint32_t> free_;
  std::vector<Op> ops_;
  uint64_t helped_ = 0;
  uint64_t received_ = 0;
};

}  // namespace torus::shm
