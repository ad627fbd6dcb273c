// The rendezvous steps both directions share (rndv.h).
#include "protocols/rndv.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/base/log.h"
#include "protocols/am_pack.h"
#include "protocols/cost.h"

namespace torus::proto {

double rndv_estimate_ns(bool get, size_t size, const LaneInfo& am, const LaneInfo& rma,
                        const SelectorConfig& cfg, SendKind kind) {
  const tl::IfaceAttr& a = *am.attr;
  const tl::IfaceAttr& r = *rma.attr;
  const double bytes = static_cast<double>(size);
  const size_t frag = std::min(get ? r.limits.max_get : r.limits.max_put, cfg.rndv_frag_size);
  const double frags =
      frag == 0 ? 1 : std::max(1.0, std::ceil(bytes / static_cast<double>(frag)));
  const double control = get ? op_ns(a.am_cost) : 3 * op_ns(a.am_cost);
  const double among_others = kind == SendKind::Alone ? 0.0 : r.rma_stream_extra_ns;
  return control + r.rma_cost.latency_ns + among_others + frags * r.rma_cost.overhead_ns +
         xfer_ns(r.rma_cost, bytes);
}

Status send_rts(ProtoEndpoint& ep, Op& op, bool get) {
  Lane& rl = ep.lane(op.lane);
  if (get && op.length > 0 && !op.mr) {
    auto mr = rl.iface->mem_register(op.buffer, op.length, tl::kAccessRead);
    if (!mr) {
      TORUS_ERROR("rndv_get: registering %zu bytes failed: %s", op.length,
                  mr.error().message.c_str());
      ep.complete_send(op, mr.status());
      return Status::Ok;
    }
    op.mr = std::move(mr.value());
  }
  const size_t rkey_len = op.mr ? rl.attr->rkey_size : 0;
  std::byte msg[sizeof(RtsHdr) + 256];
  TORUS_ASSERT(rkey_len <= 256);
  RtsHdr h{op.tag,
           ep.local_uid(),
           op.id(),
           op.length,
           reinterpret_cast<uint64_t>(op.buffer),
           rl.tl_hash,
           static_cast<uint16_t>(rkey_len),
           static_cast<uint8_t>((get ? kRtsGet : kRtsPut) | (op.sync ? kRtsSync : 0)),
           0};
  std::memcpy(msg, &h, sizeof(h));
  if (rkey_len) op.mr->pack_rkey({msg + sizeof(h), rkey_len});
  Status s = ep.send_now(kAmRts, {msg, sizeof(h) + rkey_len});
  if (s == Status::NoResource) return s;
  if (is_error(s)) {
    ep.complete_send(op, s);
    return Status::Ok;
  }
  op.stage = SendStage::WaitAck;
  ep.track(op);
  return Status::Ok;
}

bool accept_rts(ProtoEndpoint& ep, Op& op, const RtsHdr& h) {
  const int lane = ep.rma_lane_index(h.rma_tl);
  if (lane < 0) {
    send_ats(ep, h.sreq_id, Status::Unsupported);
    ep.complete_recv(op, Status::Unsupported);
    return false;
  }
  op.ep = &ep;
  op.lane = static_cast<uint8_t>(lane);
  op.put_length = std::min<size_t>(h.total_length, op.length);
  op.put_remote_addr = h.address;
  op.offset = 0;
  ep.track(op);
  return true;
}

void send_ats(ProtoEndpoint& ep, uint64_t sreq_id, Status status) {
  AckHdr h{sreq_id, static_cast<int32_t>(status), 0};
  ep.send_control(kAmAts, as_bytes_of(h));
}

}  // namespace torus::proto
