// eager_bcopy: the payload in AM fragments on the AM lane (one when it fits, else a first
// fragment with the total length and middle ones with their offsets), packed into the
// transport's buffers, or zero-copy from the user's buffer where the lane has am_zcopy and
// the fragment is large enough.
#include <algorithm>
#include <cmath>

#include "protocols/am_pack.h"
#include "protocols/cost.h"
#include "protocols/protocols_list.h"

namespace torus::proto {
namespace {

class EagerBcopy final : public Protocol {
 public:
  constexpr EagerBcopy()
      : Protocol(ProtoId::EagerBcopy, "eager_bcopy", false, {.am_bcopy = true}) {}

  double estimate_ns(size_t size, const LaneInfo& am, const LaneInfo* rma,
                     const SelectorConfig& cfg, SendKind) const override {
    const tl::IfaceAttr& a = *am.attr;
    if (a.limits.max_bcopy <= kEagerFirstHdr) return -1;
    // Beyond the transport's eager limit a rendezvous goes instead, where one can: unless
    // the user chose the protocol or the threshold.
    const bool chosen = cfg.forced || cfg.rndv_thresh != UINT64_MAX - 1;
    const size_t cap = a.limits.max_eager;
    if (!chosen && cap != 0 && size > cap && rma != nullptr &&
        (rma->attr->caps.get_zcopy || rma->attr->caps.put_zcopy))
      return -1;
    const size_t first = a.limits.max_bcopy - kEagerFirstHdr;
    double frags = 1;
    if (size > first)
      frags += std::ceil(static_cast<double>(size - first) /
                         static_cast<double>(a.limits.max_bcopy - kEagerMiddleHdr));
    // Fragments pipeline: one latency, per-fragment overhead, bandwidth of the copies.
    return a.am_cost.latency_ns + frags * a.am_cost.overhead_ns +
           xfer_ns(a.am_cost, static_cast<double>(size));
  }

  // One packed fragment, as send() would send it; not when send() would choose zero-copy,
  // which needs the request for its completion.
  Status send_inline(ProtoEndpoint& ep, uint8_t lane, const void* buf, size_t length,
                     uint64_t tag) const override {
    const Lane& l = ep.lane(lane);
    if (goes_zcopy(ep, l, sizeof(EagerHdr), length) ||
        length + sizeof(EagerHdr) > l.attr->limits.max_bcopy)
      return Status::NoResource;
    EagerHdr h{tag};
    FragPack f{&h, sizeof(h), static_cast<const std::byte*>(buf), length};
    return bcopy_frag(*l.ep, kAmEagerOnly, f);
  }

  Status send(ProtoEndpoint& ep, Op& op) const override {
    const size_t max = ep.lane(op.lane).attr->limits.max_bcopy;
    if (op.stage == SendStage::Queued) {
      Status s;
      size_t sent = op.length;
      if (!op.sync && op.length + sizeof(EagerHdr) <= max) {
        EagerHdr h{op.tag};
        s = fragment(ep, op, kAmEagerOnly, &h, sizeof(h), op.buffer, op.length);
      } else if (op.sync && op.length + sizeof(EagerSyncHdr) <= max) {
        EagerSyncHdr h{op.tag, ep.local_uid(), op.id()};
        s = fragment(ep, op, kAmEagerSync, &h, sizeof(h), op.buffer, op.length);
      } else {
        EagerFirstHdr h{op.tag, ep.local_uid(), op.sync ? op.id() : 0, op.length};
        sent = std::min(op.length, max - sizeof(h));
        s = fragment(ep, op, kAmEagerFirst, &h, sizeof(h), op.buffer, sent);
      }
      if (s == Status::NoResource) return s;
      if (is_error(s)) {
        ep.complete_send(op, s);
        return Status::Ok;
      }
      op.stage = SendStage::Fragments;
      op.offset = sent;
      if (op.sync) ep.track(op);
    }
    while (op.offset < op.length) {
      EagerMiddleHdr h{ep.local_uid(), op.offset};
      const size_t n = std::min(op.length - op.offset, max - sizeof(h));
      Status s = fragment(ep, op, kAmEagerMiddle, &h, sizeof(h), op.buffer + op.offset, n);
      if (s == Status::NoResource) return s;
      if (is_error(s)) {
        op.xfer_status = s;
        if (op.inflight == 0) ep.complete_send(op, s);
        return Status::Ok;
      }
      op.offset += n;
    }
    // Zero-copy fragments still being written keep the user's buffer borrowed.
    if (op.inflight == 0) finish(ep, op);
    return Status::Ok;
  }

 private:
  static bool goes_zcopy(const ProtoEndpoint& ep, const Lane& l, size_t hdr_len, size_t len) {
    return l.attr->caps.am_zcopy && len >= ep.zcopy_thresh() &&
           hdr_len + len <= l.attr->limits.max_zcopy;
  }

  // One fragment; InProgress (zero-copy under way) is counted in op.inflight.
  static Status fragment(ProtoEndpoint& ep, Op& op, AmId id, const void* hdr, size_t hdr_len,
                         const std::byte* data, size_t len) {
    Lane& l = ep.lane(op.lane);
    if (goes_zcopy(ep, l, hdr_len, len)) {
      op.comp.func = &zcopy_completion;
      const iovec iov{const_cast<std::byte*>(data), len};
      Status s = l.ep->am_zcopy(id, {static_cast<const std::byte*>(hdr), hdr_len}, {&iov, 1},
                                &op.comp);
      if (s != Status::InProgress) return s;
      ++op.inflight;
      return Status::Ok;
    }
    FragPack f{hdr, hdr_len, data, len};
    return bcopy_frag(*l.ep, id, f);
  }

  static void finish(ProtoEndpoint& ep, Op& op) {
    if (is_error(op.xfer_status)) {
      ep.complete_send(op, op.xfer_status);
    } else if (op.sync && !op.acked) {
      op.stage = SendStage::WaitAck;
    } else {
      ep.complete_send(op, Status::Ok);
    }
  }

  static void zcopy_completion(tl::Completion* c, Status s) {
    Op& op = *Op::of_completion(c);
    --op.inflight;
    if (is_error(s)) op.xfer_status = s;
    if (op.inflight != 0 || op.done) return;
    // Fragments not yet sent: the queued operation resumes from progress (and meets the
    // error there).
    if (op.offset < op.length && op.queued) return;
    finish(*op.ep, op);
  }
};

constinit const EagerBcopy kEagerBcopy;

}  // namespace

const Protocol& eager_bcopy_protocol() noexcept { return kEagerBcopy; }

}  // namespace torus::proto
