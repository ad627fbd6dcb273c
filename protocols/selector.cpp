// The cost model and the range search that turns it into a per-endpoint protocol table.
#include "protocols/selector.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/base/log.h"

namespace torus::proto {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();
constexpr ProtoId kAll[] = {ProtoId::EagerShort, ProtoId::EagerBcopy, ProtoId::RndvGet,
                            ProtoId::RndvPut};

double op_ns(const tl::Cost& c) { return c.overhead_ns + c.latency_ns; }
double xfer_ns(const tl::Cost& c, double bytes) {
  return c.bandwidth_Bps > 0 ? bytes * 1e9 / c.bandwidth_Bps : 0.0;
}
bool is_rndv(ProtoId p) { return p == ProtoId::RndvGet || p == ProtoId::RndvPut; }

struct Choice {
  ProtoId proto;
  double ns;
};

// Cheapest usable protocol at `size`, honouring the threshold and forcing overrides.
Choice best_at(size_t size, const LaneInfo& am, const LaneInfo* rma, const SelectorConfig& cfg,
               SendKind kind) {
  Choice best{ProtoId::EagerBcopy, std::numeric_limits<double>::infinity()};
  bool have_thresh = cfg.rndv_thresh != UINT64_MAX - 1;
  for (ProtoId p : kAll) {
    double t = estimate_ns(p, size, am, rma, cfg, kind);
    if (t < 0) continue;
    if (have_thresh && is_rndv(p) != (size >= cfg.rndv_thresh)) {
      // The threshold decides the family; the model still picks within it.
      bool family_usable = false;
      for (ProtoId q : kAll)
        if (is_rndv(q) == (size >= cfg.rndv_thresh) &&
            estimate_ns(q, size, am, rma, cfg, kind) >= 0)
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
  switch (id) {
    case ProtoId::EagerShort: return "eager_short";
    case ProtoId::EagerBcopy: return "eager_bcopy";
    case ProtoId::RndvGet: return "rndv_get";
    case ProtoId::RndvPut: return "rndv_put";
    case ProtoId::Count: break;
  }
  return "?";
}

bool proto_from_name(std::string_view name, ProtoId* out) noexcept {
  for (ProtoId p : kAll)
    if (name == proto_name(p)) {
      *out = p;
      return true;
    }
  return false;
}

double estimate_ns(ProtoId p, size_t size, const LaneInfo& am, const LaneInfo* rma,
                   const SelectorConfig& cfg, SendKind kind) {
  const bool sync = kind == SendKind::Sync;
  const tl::IfaceAttr& a = *am.attr;
  const double bytes = static_cast<double>(size);
  switch (p) {
    case ProtoId::EagerShort: {
      size_t hdr = sync ? kEagerSyncHdr : kEagerShortHdr;
      if (!a.caps.am_short || size > a.limits.max_short || hdr > a.limits.max_short - size)
        return -1;
      return op_ns(a.am_cost) + xfer_ns(a.am_cost, bytes);
    }
    case ProtoId::EagerBcopy: {
      if (!a.caps.am_bcopy || a.limits.max_bcopy <= kEagerFirstHdr) return -1;
      // Beyond the transport's eager limit a rendezvous goes instead, where one can: unless
      // the user chose the protocol or the threshold.
      const bool chosen = cfg.forced || cfg.rndv_thresh != UINT64_MAX - 1;
      const size_t cap = a.limits.max_eager;
      if (!chosen && cap != 0 && size > cap && rma != nullptr &&
          (rma->attr->caps.get_zcopy || rma->attr->caps.put_zcopy))
        return -1;
      size_t first = a.limits.max_bcopy - kEagerFirstHdr;
      double frags = 1;
      if (size > first)
        frags += std::ceil(static_cast<double>(size - first) /
                           static_cast<double>(a.limits.max_bcopy - kEagerMiddleHdr));
      // Fragments pipeline: one latency, per-fragment overhead, bandwidth of the copies.
      return a.am_cost.latency_ns + frags * a.am_cost.overhead_ns + xfer_ns(a.am_cost, bytes);
    }
    case ProtoId::RndvGet:
    case ProtoId::RndvPut: {
      if (rma == nullptr) return -1;
      const tl::IfaceAttr& r = *rma->attr;
      bool can = p == ProtoId::RndvGet ? r.caps.get_zcopy : r.caps.put_zcopy;
      if (!can || !a.caps.am_bcopy) return -1;
      size_t max_op = p == ProtoId::RndvGet ? r.limits.max_get : r.limits.max_put;
      size_t frag = std::min(max_op, cfg.rndv_frag_size);
      double frags = frag == 0 ? 1 : std::max(1.0, std::ceil(bytes / static_cast<double>(frag)));
      // get: RTS, then the read; the ATS overlaps the receiver's completion.
      // put: RTS, RTR, the write, then FIN.
      double control = p == ProtoId::RndvGet ? op_ns(a.am_cost) : 3 * op_ns(a.am_cost);
      const double among_others = kind == SendKind::Alone ? 0.0 : r.rma_stream_extra_ns;
      return control + r.rma_cost.latency_ns + among_others + frags * r.rma_cost.overhead_ns +
             xfer_ns(r.rma_cost, bytes);
    }
    case ProtoId::Count: break;
  }
  return -1;
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
    table.ranges_.push_back({start, open_end ? kMaxSize : good, c.proto, lane_of(c.proto), c.ns});
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
