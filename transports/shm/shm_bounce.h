// The bounce protocol: get/put through the FIFOs when CMA is unavailable (TORUS_SHM_CMA=n, or
// auto after EPERM/ENOSYS). It needs the target to progress.
//
// An operation is cut into chunks of (seg_size - kBounceDataOffset) bytes. The initiator keeps
// at most TORUS_SHM_BOUNCE_SIZE bytes per endpoint unanswered. Every chunk request is answered
// exactly once through the initiator's own FIFO (the target attaches it by the reply name):
//   GetReq{op, offset, addr, len, rkey}  ->  GetData{op, offset, bytes} | GetNack{op, status}
//   PutData{op, offset, addr, bytes, rkey} ->  PutAck{op, offset, len, status}
// The target checks the key against its private region table before touching memory and
// keeps no per-operation state; the initiator completes the operation when every chunk is
// answered. A full FIFO on either side queues the message here (never dropped, never blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>

#include "core/base/status.h"
#include "transports/shm/shm_peer.h"
#include "transports/shm/shm_wire.h"
#include "transports/transport.h"

namespace torus::shm {

class ShmIface;
class ShmEndpoint;

class Bounce final {
 public:
  Bounce(ShmIface& iface, size_t window, uint32_t seg_size) noexcept;
  Bounce(const Bounce&) = delete;
  Bounce& operator=(const Bounce&) = delete;

  // Starts a get (into `local`) or put (from `local`) whose key the caller already checked
  // against the target's shared table. Returns InProgress; `comp` fires from progress().
  Status start(ShmEndpoint& ep, bool is_get, std::byte* local, size_t length,
               uint64_t remote_addr, const PackedRkey& key, tl::Completion* comp);

  // An internal message from our FIFO. False when malformed: the caller drops the sender.
  bool on_message(uint8_t type, const std::byte* seg, uint32_t length, int32_t sender);

  // Sends what waits for FIFO room; returns messages sent.
  unsigned pump();
  // Whether pump() has something to retry (arm() must not let the worker sleep then).
  bool busy() const noexcept { return !active_eps_.empty() || !reply_peers_.empty(); }

  // Completes every operation of `ep` with `status` (deferred to the end of progress()).
  void fail_ops(ShmEndpoint& ep, Status status);
  // The endpoint is being destroyed: its operations complete now with Canceled.
  void forget_endpoint(ShmEndpoint& ep);
  // The peer died or was dropped: its queued replies go.
  void forget_peer(Peer& peer) noexcept;

 private:
  struct Op {
    ShmEndpoint* ep = nullptr;
    tl::Completion* comp = nullptr;
    std::byte* local = nullptr;  // get: destination; put: source (only read)
    size_t total = 0;
    size_t sent = 0;      // bytes requested (get) or sent (put)
    size_t resolved = 0;  // bytes answered
    uint64_t remote_addr = 0;
    PackedRkey key{};
    Status status = Status::Ok;
    bool is_get = true;
  };
  enum class Blocked { No, Window, Fifo };

  Blocked send_chunks(ShmEndpoint& ep);
  bool send_replies(Peer& peer);  // false when the FIFO filled up
  void queue_reply(Peer& peer, Reply reply);
  bool on_request(InternalType type, const InternalHeader& h, const std::byte* data,
                  size_t data_len);
  bool on_answer(InternalType type, const InternalHeader& h, const std::byte* data,
                 size_t data_len, int32_t sender);
  void resolve(uint64_t id, Op& op, size_t length, Status status);
  void activate(ShmEndpoint& ep);

  ShmIface& iface_;
  size_t window_;
  size_t chunk_;  // data bytes per chunk
  uint64_t next_op_ = 1;
  std::unordered_map<uint64_t, Op> ops_;
  std::deque<ShmEndpoint*> active_eps_;  // have chunks to send and window left
  std::deque<Peer*> reply_peers_;        // have replies waiting for FIFO room
};

}  // namespace torus::shm
