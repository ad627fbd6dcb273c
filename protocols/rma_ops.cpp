// Public get/put/flush (rma_ops.h).
#include "protocols/rma_ops.h"

#include <algorithm>

namespace torus::proto {
namespace {

Status flush_step(ProtoEndpoint& ep, Op& op) {
  // Everything queued before the flush has left; wait for the RMA lane to drain.
  if (ep.rma_lane() < 0) {
    ep.complete_send(op, Status::Ok);
    return Status::Ok;
  }
  op.comp.func = [](tl::Completion* c, Status s) {
    Op& o = *Op::of_completion(c);
    o.ep->complete_send(o, s);
  };
  Status s = ep.lane(static_cast<size_t>(ep.rma_lane())).ep->flush(&op.comp);
  if (s == Status::NoResource) return s;
  if (s != Status::InProgress) ep.complete_send(op, s);
  return Status::Ok;
}

}  // namespace

Status rma_step(ProtoEndpoint& ep, Op& op) {
  if (op.rma == RmaOp::Flush) return flush_step(ep, op);
  Lane& l = ep.lane(op.lane);
  const bool put = op.rma == RmaOp::Put;
  size_t frag =
      std::min(ep.rndv_frag_size(), put ? l.attr->limits.max_put : l.attr->limits.max_get);
  if (frag == 0) frag = op.length;
  op.comp.func = [](tl::Completion* c, Status s) {
    Op& o = *Op::of_completion(c);
    --o.inflight;
    if (is_error(s) && o.xfer_status == Status::Ok) o.xfer_status = s;
    if (o.queued) return;  // its pending entry resumes it
    if (rma_step(*o.ep, o) == Status::NoResource) o.ep->queue(o);
  };
  while (op.offset < op.length && op.xfer_status == Status::Ok) {
    const size_t n = std::min(frag, op.length - op.offset);
    const uint64_t raddr = op.put_remote_addr + op.offset;
    const std::span<std::byte> local{op.buffer + op.offset, n};
    Status s = put ? l.ep->put_zcopy(local, raddr, op.peer_rkey, &op.comp)
                   : l.ep->get_zcopy(local, raddr, op.peer_rkey, &op.comp);
    if (s == Status::NoResource) return s;
    if (s == Status::InProgress) ++op.inflight;
    else if (is_error(s)) op.xfer_status = s;
    op.offset += n;
  }
  if (op.inflight == 0 && !op.done) ep.complete_send(op, op.xfer_status);
  return Status::Ok;
}

}  // namespace torus::proto
