// What the endpoint interface does by itself, from its lanes alone.
#include "protocols/proto_endpoint.h"

#include "core/base/log.h"
#include "protocols/am_pack.h"

namespace torus::proto {

int ProtoEndpoint::rma_lane_index(uint32_t hash) const noexcept {
  for (size_t i = 0; i < lanes_.size(); ++i)
    if (lanes_[i].tl_hash == hash &&
        (lanes_[i].attr->caps.get_zcopy || lanes_[i].attr->caps.put_zcopy))
      return static_cast<int>(i);
  return -1;
}

Status ProtoEndpoint::send_now(uint8_t am_id, std::span<const std::byte> bytes) {
  Lane& l = am_lane();
  const tl::IfaceAttr& a = *l.attr;
  if (a.caps.am_short && bytes.size() <= a.limits.max_short)
    return l.ep->am_short(am_id, bytes, {});
  TORUS_ASSERT(bytes.size() <= a.limits.max_bcopy);
  BytesPack p{bytes.data(), bytes.size()};
  return l.ep->am_bcopy(am_id, &pack_bytes, &p);
}

void ProtoEndpoint::on_ack(Op& op, Status status) {
  if (op.stage == SendStage::WaitAck)
    complete_send(op, status == Status::BufferTooSmall ? Status::Ok : status);
  else
    op.acked = true;  // a sync eager matched before its last fragment left
}

}  // namespace torus::proto
