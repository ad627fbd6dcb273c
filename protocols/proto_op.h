// What a protocol sees of a request: the buffer, where the message stands in its protocol,
// the peer's ids and keys. core's RequestImpl derives from Op and adds the API side
// (callbacks, tag-matching links), which no protocol touches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "protocols/selector.h"
#include "transports/transport.h"

namespace torus::proto {

class ProtoEndpoint;

// Where a send stands in its protocol.
enum class SendStage : uint8_t {
  Queued,     // on the endpoint's pending list, nothing sent yet
  Fragments,  // eager_bcopy: `offset` bytes sent so far
  WaitAck,    // all sent; waiting for the receiver's sync ack / ATS / FIN-able RTR
  Putting,    // rndv_put: writing into the receiver's buffer
  Done,
};

// One-sided operations of the public API (protocols/rma_ops.cpp).
enum class RmaOp : uint8_t { None, Put, Get, Flush };

// The fields a new use of a request starts afresh, trivially copyable so that the pool
// resets them with one copy of a constant.
struct OpState {
  bool done = false;
  bool queued = false;  // on its endpoint's pending list: only that entry resumes it
  std::byte* buffer = nullptr;
  size_t length = 0;  // send: message size; recv: buffer size
  uint64_t tag = 0;
  ProtoEndpoint* ep = nullptr;  // the endpoint the operation runs on
  ProtoId proto = ProtoId::EagerShort;
  uint8_t lane = 0;
  SendStage stage = SendStage::Queued;
  bool sync = false;
  bool acked = false;  // sync eager: the receiver matched it
  RmaOp rma = RmaOp::None;
  size_t offset = 0;    // bytes sent/read/written so far
  size_t inflight = 0;  // outstanding transport completions
  uint64_t peer_req_id = 0;  // the peer's request id (RTS: sender's; RTR: receiver's)
  uint64_t put_remote_addr = 0;
  size_t put_length = 0;
  uint64_t sender_uid = 0;          // receive: the sending worker
  Status recv_status = Status::Ok;  // BufferTooSmall when truncated
  Status xfer_status = Status::Ok;  // first failure of a get/put fragment
  tl::Completion comp;              // transport completions of get/put fragments
};
static_assert(std::is_trivially_copyable_v<OpState>);
static_assert(std::is_standard_layout_v<OpState>);

class Op : public OpState {
 public:
  // Identity on the wire: pool index and generation, so a stale id is recognised.
  uint64_t id() const noexcept { return (uint64_t{generation} << 32) | index; }
  // The operation whose `comp` a transport completed.
  static Op* of_completion(tl::Completion* c) noexcept {
    auto* st = reinterpret_cast<OpState*>(reinterpret_cast<char*>(c) - offsetof(OpState, comp));
    return static_cast<Op*>(st);
  }

  // Kept across uses (the pool empties them when a request is freed).
  uint32_t index = 0;
  uint32_t generation = 0;
  std::unique_ptr<tl::MemRegion> mr;  // our buffer, registered for the peer's get/put
  std::vector<std::byte> peer_rkey;   // the peer's packed key
};

}  // namespace torus::proto
