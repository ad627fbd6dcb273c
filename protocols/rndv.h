// What rndv_get and rndv_put share: the cost model of a rendezvous and the RTS that opens
// one on the sender's side.
#pragma once

#include "protocols/protocol.h"

namespace torus::proto {

// Estimated time of a rendezvous of `size` bytes: the control messages (get: the RTS, with
// the ATS overlapping the receiver's completion; put: RTS, RTR and FIN), then the transfer
// in rndv_frag_size pieces on the RMA lane.
double rndv_estimate_ns(bool get, size_t size, const LaneInfo& am, const LaneInfo& rma,
                        const SelectorConfig& cfg, SendKind kind);

// Sends the RTS of `op` (rndv_get: its buffer registered for reading, the key in the RTS)
// and waits for the receiver's answer; NoResource under back-pressure.
Status send_rts(ProtoEndpoint& ep, Op& op, bool get);

// Receiver: takes the lane the RTS names for the transfer into `op` (its buffer, already
// matched) and tracks it; false when no lane of ours can, after refusing the RTS.
bool accept_rts(ProtoEndpoint& ep, Op& op, const RtsHdr& h);

// Receiver: tells the sender the rendezvous ended (ATS), with its status.
void send_ats(ProtoEndpoint& ep, uint64_t sreq_id, Status status);

}  // namespace torus::proto
