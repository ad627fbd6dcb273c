// The measured eager/rendezvous choice of proto_tuner.h.
#include "protocols/proto_tuner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace torus::proto {

TuneBand tune_band(const LaneInfo& am, const LaneInfo* rma, const SelectorConfig& cfg,
                   size_t model_rndv) {
  TuneBand band;
  if (cfg.forced || cfg.rndv_thresh != UINT64_MAX - 1 || rma == nullptr) return band;
  const tl::IfaceAttr& a = *am.attr;
  if (!a.caps.am_bcopy || a.limits.max_bcopy <= kEagerFirstHdr) return band;
  size_t lo = std::max(ProtoTuner::kMinSize, a.limits.max_short + 1);
  size_t hi = 0;
  if (a.limits.max_eager != 0) {
    hi = a.limits.max_eager + 1;
  } else if (model_rndv != SIZE_MAX) {
    lo = std::max(lo, model_rndv / ProtoTuner::kSpan);
    hi = model_rndv > SIZE_MAX / ProtoTuner::kSpan ? SIZE_MAX : model_rndv * ProtoTuner::kSpan;
  }
  hi = std::min(hi, ProtoTuner::kMaxSize + 1);
  if (lo >= hi) return band;
  double best = -1;
  for (ProtoId p : {ProtoId::RndvGet, ProtoId::RndvPut}) {
    const double t = estimate_ns(p, lo, am, rma, cfg, SendKind::Any);
    if (t >= 0 && (best < 0 || t < best)) {
      best = t;
      band.rndv = p;
    }
  }
  if (best < 0 || estimate_ns(ProtoId::EagerBcopy, lo, am, rma, cfg, SendKind::Any) < 0)
    return band;
  band.lo = lo;
  band.hi = hi;
  return band;
}

ProtoTuner::ProtoTuner(const TuneBand& band, const ProtoTable& model)
    : lo_(band.lo), hi_(band.hi), first_(bucket(band.lo)) {
  if (lo_ >= hi_) return;
  const unsigned last = bucket(hi_ - 1);
  buckets_.reserve(last - first_ + 1);
  for (unsigned b = first_; b <= last; ++b) {
    const size_t size = std::max(bucket_start(b), lo_);
    const ProtoId chosen = model.lookup(size).proto;
    buckets_.emplace_back(kParams, chosen == ProtoId::RndvGet || chosen == ProtoId::RndvPut);
  }
}

std::string ProtoTuner::describe(ProtoId rndv) const {
  std::string out;
  char line[200];
  for (size_t i = 0; i < buckets_.size(); ++i) {
    const EpochAb& ab = buckets_[i];
    if (ab.epochs() == 0) continue;
    const unsigned b = first_ + static_cast<unsigned>(i);
    // Bytes per ns are GB/s.
    std::snprintf(line, sizeof(line),
                  "    from %zu B: eager_bcopy %.2f GB/s, %s %.2f GB/s: %s (%llu epochs)\n",
                  std::max(bucket_start(b), lo_), ab.rate(false), proto_name(rndv), ab.rate(true),
                  ab.winner() ? proto_name(rndv) : "eager_bcopy",
                  static_cast<unsigned long long>(ab.epochs()));
    out += line;
  }
  return out;
}

uint64_t ProtoTuner::now_ns() noexcept {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace torus::proto
