// The one-sided operations of the public API (Endpoint::put/get/flush): fragmented to the
// RMA lane's limits, resumed from the endpoint's pending queue under back-pressure.
#pragma once

#include "protocols/proto_endpoint.h"

namespace torus::proto {

// Runs op (op.rma says which) as far as the lane allows; NoResource: queue and retry.
// A flush completes once everything issued before it on the RMA lane has.
Status rma_step(ProtoEndpoint& ep, Op& op);

}  // namespace torus::proto
