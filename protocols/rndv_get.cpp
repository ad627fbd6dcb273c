// rndv_get: the sender registers its buffer and sends an RTS with the key; the receiver
// reads the message with get_zcopy in rndv_frag_size pieces and answers with an ATS.
#include <algorithm>

#include "core/base/log.h"
#include "protocols/protocols_list.h"
#include "protocols/rndv.h"

namespace torus::proto {
namespace {

class RndvGet final : public Protocol {
 public:
  constexpr RndvGet()
      : Protocol(ProtoId::RndvGet, "rndv_get", true, {.am_bcopy = true, .get = true}) {}

  double estimate_ns(size_t size, const LaneInfo& am, const LaneInfo* rma,
                     const SelectorConfig& cfg, SendKind kind) const override {
    return rndv_estimate_ns(true, size, am, *rma, cfg, kind);
  }

  Status send(ProtoEndpoint& ep, Op& op) const override { return send_rts(ep, op, true); }

  void recv_rts(ProtoEndpoint& ep, Op& op, const RtsHdr& h, std::span<const std::byte> rkey,
                bool from_post) const override {
    if (!accept_rts(ep, op, h)) return;
    op.peer_rkey.assign(rkey.begin(), rkey.end());
    // A read posted from MPI_Irecv and the like would copy the whole message (shm's CMA read
    // is synchronous) before the caller's next call: a program that posts its receives and
    // then its sends (a halo exchange, osu_bibw) would leave the peer idle until every read
    // is done, and the two directions would take turns instead of running together.
    if (from_post) return ep.queue(op);
    read(ep, op);
  }

  void recv_progress(ProtoEndpoint& ep, Op& op) const override { read(ep, op); }

 private:
  static void read(ProtoEndpoint& ep, Op& op) {
    Lane& l = ep.lane(op.lane);
    size_t frag = std::min(ep.rndv_frag_size(), l.attr->limits.max_get);
    if (frag == 0) frag = op.put_length;
    op.comp.func = [](tl::Completion* c, Status s) {
      Op& o = *Op::of_completion(c);
      --o.inflight;
      if (is_error(s)) o.xfer_status = s;
      if (!o.queued) read(*o.ep, o);
    };
    while (op.offset < op.put_length && op.xfer_status == Status::Ok) {
      const size_t n = std::min(frag, op.put_length - op.offset);
      Status s = l.ep->get_zcopy({op.buffer + op.offset, n}, op.put_remote_addr + op.offset,
                                 op.peer_rkey, &op.comp);
      if (s == Status::NoResource) return ep.queue(op);
      if (s == Status::InProgress) {
        ++op.inflight;
      } else if (is_error(s)) {
        TORUS_DEBUG("rndv get of %zu bytes failed: %s", n, status_string(s));
        op.xfer_status = s;
        break;
      }
      op.offset += n;
    }
    if (op.inflight != 0 || op.done) return;
    const Status st = op.xfer_status != Status::Ok ? op.xfer_status : op.recv_status;
    if (st != Status::ConnectionReset && !is_error(ep.failed()))
      send_ats(ep, op.peer_req_id, st == Status::BufferTooSmall ? Status::Ok : st);
    ep.complete_recv(op, st);
  }
};

constinit const RndvGet kRndvGet;

}  // namespace

const Protocol& rndv_get_protocol() noexcept { return kRndvGet; }

}  // namespace torus::proto
