// A protocol: one way of moving a tagged message, chosen per size by the selector. Each is
// an object in its own file (eager_short.cpp, ...), listed in priority order in
// registry.cpp; adding a protocol is adding a file and a row there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocols/proto_endpoint.h"
#include "protocols/proto_op.h"
#include "protocols/selector.h"
#include "protocols/wire.h"

namespace torus::proto {

// What a protocol needs of the lanes it runs on; the selector offers it only where they
// have it.
struct LaneNeeds {
  bool am_short = false;  // of the AM lane
  bool am_bcopy = false;  // of the AM lane (control messages or the payload)
  bool get = false;       // of the RMA lane
  bool put = false;       // of the RMA lane
};

class Protocol {
 public:
  constexpr Protocol(ProtoId id, const char* name, bool rendezvous, LaneNeeds needs)
      : id_(id), name_(name), rendezvous_(rendezvous), needs_(needs) {}

  ProtoId id() const noexcept { return id_; }
  const char* name() const noexcept { return name_; }
  // Sent by a rendezvous (the receiver's buffer is known before the bytes move).
  bool rendezvous() const noexcept { return rendezvous_; }
  const LaneNeeds& needs() const noexcept { return needs_; }
  // Whether these lanes have what needs() asks for.
  bool usable(const LaneInfo& am, const LaneInfo* rma) const noexcept;

  // Estimated time for `size` bytes on these lanes, with the protocol's own round trips and
  // copies; < 0 where it cannot send that size. Called only where usable().
  virtual double estimate_ns(size_t size, const LaneInfo& am, const LaneInfo* rma,
                             const SelectorConfig& cfg, SendKind kind) const = 0;

  // A message that goes out whole, now, with no request: Ok or an error when it did,
  // NoResource when it needs the request path (too large, back-pressure, or a protocol
  // that always needs one).
  virtual Status send_inline(ProtoEndpoint&, uint8_t /*lane*/, const void* /*buf*/,
                             size_t /*length*/, uint64_t /*tag*/) const {
    return Status::NoResource;
  }
  // Starts or resumes the send side of `op`; NoResource: back-pressure, queue and retry.
  virtual Status send(ProtoEndpoint& ep, Op& op) const = 0;

  // Rendezvous receive side: the RTS matched `op` (a posted receive; `from_post` when the
  // receive was posted after the RTS arrived). The lane is op.lane.
  virtual void recv_rts(ProtoEndpoint&, Op&, const RtsHdr&, std::span<const std::byte>,
                        bool /*from_post*/) const {}
  // Resumes a receive queued by back-pressure.
  virtual void recv_progress(ProtoEndpoint&, Op&) const {}
  // Sender side of a reply that only this protocol expects (rndv_put: the RTR).
  virtual void on_rtr(ProtoEndpoint& ep, Op&, const RtrHdr&, std::span<const std::byte>) const {
    ep.protocol_error("RTR for a protocol that expects none");
  }

 protected:
  ~Protocol() = default;

 private:
  ProtoId id_;
  const char* name_;
  bool rendezvous_;
  LaneNeeds needs_;
};

// Every protocol, in priority order: on equal cost the earlier one wins.
std::span<const Protocol* const> protocols() noexcept;
// The protocol with this id (id < ProtoId::Count).
const Protocol& protocol(ProtoId id) noexcept;

}  // namespace torus::proto
