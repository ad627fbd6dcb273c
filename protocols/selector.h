// Protocol selection: for one endpoint's lanes, a table of size ranges -> (protocol, lane),
// built once from the transports' cost models and looked up per message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "transports/transport.h"

namespace torus::proto {

// The protocols (protocols/registry.cpp), in priority order: on equal cost the earlier one
// wins, so selection is deterministic.
enum class ProtoId : uint8_t { EagerShort, EagerBcopy, RndvGet, RndvPut, Count };

const char* proto_name(ProtoId id) noexcept;
// "eager_short" -> EagerShort; false if unknown.
bool proto_from_name(std::string_view name, ProtoId* out) noexcept;

struct LaneInfo {
  std::string_view tl_name;
  const tl::IfaceAttr* attr = nullptr;
};

struct SelectorConfig {
  uint64_t rndv_thresh = UINT64_MAX - 1;  // config::kSizeAuto: from the cost model
  bool forced = false;                    // TORUS_PROTO names one protocol
  ProtoId forced_proto = ProtoId::EagerShort;
  size_t rndv_frag_size = 4 << 20;
};

// Which table: for any tag send; for one sent alone (nothing else in flight to its peer,
// the worker polled since the last one: a ping-pong, a blocking send), where only latency
// counts; for synchronous sends (a larger header).
enum class SendKind : uint8_t { Any, Alone, Sync };

class Protocol;

struct ProtoRange {
  size_t min = 0;
  size_t max = 0;  // inclusive; SIZE_MAX for the last range
  ProtoId proto = ProtoId::EagerShort;
  uint8_t lane = 0;
  double est_ns = 0;  // estimated time at `min`
  const Protocol* protocol = nullptr;  // protocol(proto), for the send path
};

// Header bytes each protocol puts before the payload (for the max_short/max_bcopy checks).
inline constexpr size_t kEagerShortHdr = 8;
inline constexpr size_t kEagerSyncHdr = 24;
inline constexpr size_t kEagerFirstHdr = 32;
inline constexpr size_t kEagerMiddleHdr = 16;

class ProtoTable {
 public:
  // Ranges cover [0, SIZE_MAX] without gaps, in increasing order.
  const ProtoRange& lookup(size_t size) const noexcept {
    const ProtoRange* r = ranges_.data();
    while (size > r->max) ++r;
    return *r;
  }
  std::span<const ProtoRange> ranges() const noexcept { return ranges_; }
  // Smallest size sent by a rendezvous protocol; SIZE_MAX when none is.
  size_t first_rndv() const noexcept;
  std::string describe(std::span<const LaneInfo> lanes) const;

 private:
  friend ProtoTable build_tag_table(std::span<const LaneInfo>, int, int, const SelectorConfig&,
                                    SendKind);
  std::vector<ProtoRange> ranges_;
};

// Estimated time for `size` bytes with protocol `p` on these lanes (Protocol::estimate_ns
// where the lanes have what it needs); < 0 when not usable.
double estimate_ns(ProtoId p, size_t size, const LaneInfo& am, const LaneInfo* rma,
                   const SelectorConfig& cfg, SendKind kind);

// Builds the table for tag sends. am_lane: index of the active-message lane; rma_lane: index
// of the get/put lane or -1.
ProtoTable build_tag_table(std::span<const LaneInfo> lanes, int am_lane, int rma_lane,
                           const SelectorConfig& cfg, SendKind kind);

}  // namespace torus::proto
