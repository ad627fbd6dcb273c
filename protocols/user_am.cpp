// User active messages, send side (user_am.h).
#include "protocols/user_am.h"

#include <cstring>

#include "protocols/am_pack.h"
#include "protocols/wire.h"

namespace torus::proto {

Status send_user_am(ProtoEndpoint& ep, Op& op, uint8_t id, std::span<const std::byte> header) {
  UserAmHdr h{ep.local_uid(), id, static_cast<uint8_t>(header.size()), {}};
  std::byte hdr[sizeof(h) + kMaxUserAmHeader];
  std::memcpy(hdr, &h, sizeof(h));
  if (!header.empty()) std::memcpy(hdr + sizeof(h), header.data(), header.size());
  FragPack f{hdr, sizeof(h) + header.size(), op.buffer, op.length};
  Lane& l = ep.am_lane();
  const tl::IfaceAttr& a = *l.attr;
  Status s = a.caps.am_short && f.hdr_length + f.length <= a.limits.max_short
                 ? l.ep->am_short(kAmUser, {hdr, f.hdr_length}, {op.buffer, op.length})
                 : bcopy_frag(*l.ep, kAmUser, f);
  if (s == Status::NoResource) return s;
  ep.complete_send(op, s);
  return Status::Ok;
}

}  // namespace torus::proto
