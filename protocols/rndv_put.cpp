// rndv_put: the sender sends an RTS without a key; the receiver registers its buffer and
// answers with an RTR (address, length, key); the sender writes with put_zcopy in
// rndv_frag_size pieces, flushes the lane, and sends a FIN that completes the receive.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/log.h"
#include "protocols/am_pack.h"
#include "protocols/protocols_list.h"
#include "protocols/rndv.h"

namespace torus::proto {
namespace {

class RndvPut final : public Protocol {
 public:
  constexpr RndvPut()
      : Protocol(ProtoId::RndvPut, "rndv_put", true, {.am_bcopy = true, .put = true}) {}

  double estimate_ns(size_t size, const LaneInfo& am, const LaneInfo* rma,
                     const SelectorConfig& cfg, SendKind kind) const override {
    return rndv_estimate_ns(false, size, am, *rma, cfg, kind);
  }

  Status send(ProtoEndpoint& ep, Op& op) const override {
    if (op.stage == SendStage::Putting) return write(ep, op);
    return send_rts(ep, op, false);
  }

  void on_rtr(ProtoEndpoint& ep, Op& op, const RtrHdr& h,
              std::span<const std::byte> rkey) const override {
    const int lane = ep.rma_lane_index(h.rma_tl);
    if (lane < 0 || h.length > op.length)
      return ep.protocol_error("RTR names no usable lane or too many bytes");
    op.lane = static_cast<uint8_t>(lane);
    op.peer_req_id = h.rreq_id;
    op.put_remote_addr = h.address;
    op.put_length = h.length;
    op.peer_rkey.assign(rkey.begin(), rkey.end());
    op.stage = SendStage::Putting;
    op.offset = 0;
    op.xfer_status = Status::Ok;
    if (write(ep, op) == Status::NoResource) ep.queue(op);
  }

  // Expose our buffer and tell the sender where to write.
  void recv_rts(ProtoEndpoint& ep, Op& op, const RtsHdr& h, std::span<const std::byte>,
                bool) const override {
    if (!accept_rts(ep, op, h)) return;
    const Lane& l = ep.lane(op.lane);
    auto mr = l.iface->mem_register(op.buffer, op.put_length, tl::kAccessWrite);
    if (!mr) {
      TORUS_ERROR("rndv_put: registering %zu bytes failed: %s", op.put_length,
                  mr.error().message.c_str());
      send_ats(ep, h.sreq_id, mr.status());
      return ep.complete_recv(op, mr.status());
    }
    op.mr = std::move(mr.value());
    std::vector<std::byte> msg(sizeof(RtrHdr) + l.attr->rkey_size);
    RtrHdr rtr{h.sreq_id, op.id(), reinterpret_cast<uint64_t>(op.buffer), op.put_length,
               l.tl_hash, static_cast<uint16_t>(l.attr->rkey_size), 0};
    std::memcpy(msg.data(), &rtr, sizeof(rtr));
    op.mr->pack_rkey({msg.data() + sizeof(rtr), l.attr->rkey_size});
    ep.send_control(kAmRtr, msg);
  }

 private:
  // Writes what is left, then flushes the lane; NoResource under back-pressure.
  static Status write(ProtoEndpoint& ep, Op& op) {
    Lane& l = ep.lane(op.lane);
    size_t frag = std::min(ep.rndv_frag_size(), l.attr->limits.max_put);
    if (frag == 0) frag = op.put_length;
    op.comp.func = &put_completion;
    while (op.offset < op.put_length && !is_error(op.xfer_status)) {
      const size_t n = std::min(frag, op.put_length - op.offset);
      Status s = l.ep->put_zcopy({op.buffer + op.offset, n}, op.put_remote_addr + op.offset,
                                 op.peer_rkey, &op.comp);
      if (s == Status::NoResource) return s;
      if (s == Status::InProgress) ++op.inflight;
      else if (is_error(s)) op.xfer_status = s;
      if (!is_error(s)) op.offset += n;
    }
    if (op.inflight != 0) return Status::Ok;
    if (is_error(op.xfer_status)) {
      finish(ep, op);
      return Status::Ok;
    }
    op.comp.func = &flush_completion;
    Status s = l.ep->flush(&op.comp);
    if (s == Status::NoResource) return s;
    if (s != Status::InProgress) {
      if (is_error(s)) op.xfer_status = s;
      finish(ep, op);
    }
    return Status::Ok;
  }

  static void put_completion(tl::Completion* c, Status s) {
    Op& op = *Op::of_completion(c);
    --op.inflight;
    if (is_error(s)) op.xfer_status = s;
    if (op.inflight == 0 && !op.done && !op.queued && write(*op.ep, op) == Status::NoResource)
      op.ep->queue(op);
  }

  static void flush_completion(tl::Completion* c, Status s) {
    Op& op = *Op::of_completion(c);
    if (is_error(s)) op.xfer_status = s;
    finish(*op.ep, op);
  }

  static void finish(ProtoEndpoint& ep, Op& op) {
    const Status st = op.xfer_status;
    AckHdr h{op.peer_req_id, static_cast<int32_t>(st), 0};
    ep.send_control(kAmFin, as_bytes_of(h));
    ep.complete_send(op, st);
  }
};

constinit const RndvPut kRndvPut;

}  // namespace

const Protocol& rndv_put_protocol() noexcept { return kRndvPut; }

}  // namespace torus::proto
