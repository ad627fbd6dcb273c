// The cost model and the range search that turns it into a per-endpoint protocol table.
#include "protocols/selector.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/base/log.h"
#include "protocols/protocol.h"

namespace torus::proto {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();
bool is_rndv(ProtoId p) { return protocol(p).rendezvous(); }

struct Choice {
  ProtoId proto;
  double ns;
};

// Cheapest usable protocol at `size`, honouring the threshold and forcing overrides.
Choice best_at(size_t size, const LaneInfo& am, const LaneInfo* rma, const SelectorConfig& cfg,
               SendKind kind) {
  Choice best{ProtoId::EagerBcopy, std::numeric_limits<double>::infinity()};
  bool have_thresh = cfg.rndv_thresh != UINT64_MAX - 1;
  for (const Protocol* pr : protocols()) {
    const ProtoId p = pr->id();
    double t = estimate_ns(p, size, am, rma, cfg, kind);
    if (t < 0) continue;
    if (have_thresh && is_rndv(p) != (size >= cfg.rndv_thresh)) {
      // The threshold decides the family; the model still picks within it.
      bool family_usable = false;
      for (const Protocol* q : protocols())
        if (q->rendezvous() == (size >= cfg.rndv_thresh) &&
            estimate_ns(q->id(), size, am, rma, cfg, kind) >= 0)
          family_usable = true;
      if (family_usable) continue;
    }
    if (cfg.forced && p == cfg.forced_proto) return {p, t};
    if (t < best.ns) best = {p, t};
  }
  return best;
}

}  // namespace

const char* proto_name(ProtoId id) noexcept {
  return id < ProtoId::Count ? protocol(id).name() : "?";
}

bool proto_from_name(std::string_view name, ProtoId* out) noexcept {
  for (const Protocol* p : protocols())
    if (name == p->name()) {
      *out = p->id();
      return true;
    }
  return false;
}

double estimate_ns(ProtoId p, size_t size, const LaneInfo& am, const LaneInfo* rma,
                   const SelectorConfig& cfg, SendKind kind) {
  const Protocol& pr = protocol(p);
  if (!pr.usable(am, rma)) return -1;
  return pr.estimate_ns(size, am, rma, cfg, kind);
}

ProtoTable build_tag_table(std::span<const LaneInfo> lanes, int am_lane, int rma_lane,
                           const SelectorConfig& cfg, SendKind kind) {
  TORUS_ASSERT(am_lane >= 0 && static_cast<size_t>(am_lane) < lanes.size());
  const LaneInfo& am = lanes[static_cast<size_t>(am_lane)];
  const LaneInfo* rma = rma_lane >= 0 ? &lanes[static_cast<size_t>(rma_lane)] : nullptr;
  auto lane_of = [&](ProtoId p) {
    return static_cast<uint8_t>(is_rndv(p) ? rma_lane : am_lane);
  };

  ProtoTable table;
  size_t start = 0;
  for (;;) {
    Choice c = best_at(start, am, rma, cfg, kind);
    // Costs are linear in size and usability changes only at limits, so the winner holds on
    // one interval: grow exponentially, then bisect its end.
    size_t good = start, step = 1;
    size_t bad = kMaxSize;
    bool open_end = true;
    while (true) {
      size_t probe = good > kMaxSize - step ? kMaxSize : good + step;
      if (best_at(probe, am, rma, cfg, kind).proto != c.proto) {
        bad = probe;
        open_end = false;
        break;
      }
      good = probe;
      if (probe == kMaxSize) break;
      step *= 2;
    }
    if (!open_end) {
      while (bad - good > 1) {
        size_t mid = good + (bad - good) / 2;
        if (best_at(mid, am, rma, cfg, kind).proto == c.proto)
          good = mid;
        else
          bad = mid;
      }
    }
    table.ranges_.push_back(
        {start, open_end ? kMaxSize : good, c.proto, lane_of(c.proto), c.ns, &protocol(c.proto)});
    if (open_end) break;
    start = good + 1;
  }
  return table;
}

size_t ProtoTable::first_rndv() const noexcept {
  for (const ProtoRange& r : ranges_)
    if (is_rndv(r.proto)) return r.min;
  return kMaxSize;
}

std::string ProtoTable::describe(std::span<const LaneInfo> lanes) const {
  std::string out;
  char line[256];
  for (const ProtoRange& r : ranges_) {
    char max[32];
    if (r.max == kMaxSize)
      std::snprintf(max, sizeof(max), "inf");
    else
      std::snprintf(max, sizeof(max), "%zu", r.max);
    std::string_view tl = r.lane < lanes.size() ? lanes[r.lane].tl_name : "?";
    std::snprintf(line, sizeof(line), "  %10zu .. %-10s %-12s lane %u (%.*s)  est %.0f ns at %zu B\n",
                  r.min, max, proto_name(r.proto), r.lane, static_cast<int>(tl.size()),
                  tl.data(), r.est_ns, r.min);
    out += line;
  }
  return out;
}

}  // namespace torus::proto
