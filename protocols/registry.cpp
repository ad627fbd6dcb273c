// The protocols, in priority order: the selector builds every table from this list.
#include "protocols/protocol.h"
#include "protocols/protocols_list.h"

namespace torus::proto {
namespace {

constexpr size_t kCount = static_cast<size_t>(ProtoId::Count);

// Indexed by ProtoId, which is also the priority order. Built on first use, so that no
// static initialiser of another file can see it empty.
const Protocol* const* table() noexcept {
  static const Protocol* const kProtocols[] = {
      &eager_short_protocol(),
      &eager_bcopy_protocol(),
      &rndv_get_protocol(),
      &rndv_put_protocol(),
  };
  static_assert(std::size(kProtocols) == kCount);
  return kProtocols;
}

}  // namespace

std::span<const Protocol* const> protocols() noexcept { return {table(), kCount}; }

const Protocol& protocol(ProtoId id) noexcept { return *table()[static_cast<size_t>(id)]; }

bool Protocol::usable(const LaneInfo& am, const LaneInfo* rma) const noexcept {
  const tl::Caps& a = am.attr->caps;
  if ((needs_.am_short && !a.am_short) || (needs_.am_bcopy && !a.am_bcopy)) return false;
  if (!needs_.get && !needs_.put) return true;
  if (rma == nullptr) return false;
  const tl::Caps& r = rma->attr->caps;
  return (!needs_.get || r.get_zcopy) && (!needs_.put || r.put_zcopy);
}

}  // namespace torus::proto
