// The narrow interface an endpoint gives the protocols: its lanes, control messages on the
// AM lane, and completing, tracking and queueing an operation. core's EndpointImpl
// implements it; a protocol sees no tag matching, no worker and no concrete transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "protocols/proto_op.h"
#include "transports/transport.h"

namespace torus::proto {

// One transport interface's connection to the peer.
struct Lane {
  size_t iface_index = 0;
  tl::Iface* iface = nullptr;  // registers memory for this lane's get/put
  std::string tl_name;
  uint32_t tl_hash = 0;
  const tl::IfaceAttr* attr = nullptr;
  std::unique_ptr<tl::Endpoint> ep;
};

// Contract: every call is made from the worker's progress context (the thread that owns
// the worker); none blocks. A protocol step returns NoResource when a transport pushed
// back: the caller queues the operation (queue()) and runs the step again from progress.
class ProtoEndpoint {
 public:
  Lane& lane(size_t i) noexcept { return lanes_[i]; }
  Lane& am_lane() noexcept { return lanes_[static_cast<size_t>(am_lane_)]; }
  int am_lane_index() const noexcept { return am_lane_; }
  int rma_lane() const noexcept { return rma_lane_; }
  // The lane of the transport a peer named in an RTS/RTR (it must do get or put); -1 if none.
  int rma_lane_index(uint32_t tl_hash) const noexcept;
  uint64_t local_uid() const noexcept { return local_uid_; }
  Status failed() const noexcept { return failed_; }
  // Eager fragments at least this large go zero-copy where the lane has am_zcopy.
  size_t zcopy_thresh() const noexcept { return zcopy_thresh_; }
  // Rendezvous and RMA transfers are cut into pieces of at most this size.
  size_t rndv_frag_size() const noexcept { return rndv_frag_size_; }

  // A small message on the AM lane, now: Ok, or NoResource under back-pressure.
  Status send_now(uint8_t am_id, std::span<const std::byte> bytes);
  // A control message (ack, RTR, FIN): sent now, or queued in order on back-pressure.
  virtual void send_control(uint8_t am_id, std::span<const std::byte> bytes) = 0;
  // The receiver's sync ack or ATS for a send of ours: completes it, or (a sync eager whose
  // last fragments are still leaving) marks it acknowledged.
  void on_ack(Op& op, Status status);
  virtual void complete_send(Op& op, Status status) = 0;
  virtual void complete_recv(Op& op, Status status) = 0;
  // Outstanding: completed with an error if the endpoint fails.
  virtual void track(Op& op) = 0;
  // Runs the operation's next step again from progress (after back-pressure).
  virtual void queue(Op& op) = 0;
  // A reply from the peer that does not fit the operation: logged, connection dropped.
  virtual void protocol_error(const char* what) = 0;

 protected:
  ProtoEndpoint() = default;
  ~ProtoEndpoint() = default;

  std::vector<Lane> lanes_;
  int am_lane_ = -1;
  int rma_lane_ = -1;
  uint64_t local_uid_ = 0;
  Status failed_ = Status::Ok;
  size_t zcopy_thresh_ = 8192;
  size_t rndv_frag_size_ = 4 << 20;
};

}  // namespace torus::proto
