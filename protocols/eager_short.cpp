// eager_short: the tag and the whole payload inline in one AM (am_short); no request on the
// send side unless the send is synchronous or meets back-pressure.
#include "protocols/am_pack.h"
#include "protocols/cost.h"
#include "protocols/protocols_list.h"

namespace torus::proto {
namespace {

class EagerShort final : public Protocol {
 public:
  constexpr EagerShort()
      : Protocol(ProtoId::EagerShort, "eager_short", false, {.am_short = true}) {}

  double estimate_ns(size_t size, const LaneInfo& am, const LaneInfo*, const SelectorConfig&,
                     SendKind kind) const override {
    const tl::IfaceAttr& a = *am.attr;
    const size_t hdr = kind == SendKind::Sync ? kEagerSyncHdr : kEagerShortHdr;
    if (size > a.limits.max_short || hdr > a.limits.max_short - size) return -1;
    return op_ns(a.am_cost) + xfer_ns(a.am_cost, static_cast<double>(size));
  }

  Status send_inline(ProtoEndpoint& ep, uint8_t lane, const void* buf, size_t length,
                     uint64_t tag) const override {
    EagerHdr h{tag};
    return ep.lane(lane).ep->am_short(kAmEagerOnly, as_bytes_of(h),
                                      {static_cast<const std::byte*>(buf), length});
  }

  Status send(ProtoEndpoint& ep, Op& op) const override {
    std::span<const std::byte> payload{op.buffer, op.length};
    tl::Endpoint& tl_ep = *ep.lane(op.lane).ep;
    Status s;
    if (op.sync) {
      EagerSyncHdr h{op.tag, ep.local_uid(), op.id()};
      s = tl_ep.am_short(kAmEagerSync, as_bytes_of(h), payload);
    } else {
      EagerHdr h{op.tag};
      s = tl_ep.am_short(kAmEagerOnly, as_bytes_of(h), payload);
    }
    if (s == Status::NoResource) return s;
    if (is_error(s) || !op.sync) {
      ep.complete_send(op, s);
    } else {
      op.stage = SendStage::WaitAck;
      ep.track(op);
    }
    return Status::Ok;
  }
};

constinit const EagerShort kEagerShort;

}  // namespace

const Protocol& eager_short_protocol() noexcept { return kEagerShort; }

}  // namespace torus::proto
