// The pieces every protocol's estimate is made of (../shared/DESIGN.md: time(size) =
// overhead + latency + size / bandwidth, per operation on a lane).
#pragma once

#include "transports/transport.h"

namespace torus::proto {

inline double op_ns(const tl::Cost& c) { return c.overhead_ns + c.latency_ns; }
inline double xfer_ns(const tl::Cost& c, double bytes) {
  return c.bandwidth_Bps > 0 ? bytes * 1e9 / c.bandwidth_Bps : 0.0;
}

}  // namespace torus::proto
