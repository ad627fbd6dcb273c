// A get or put striped over several connections of a pair of workers: one completion per
// piece, and the caller's completion once every piece is answered (tcp_rma.cpp).
#pragma once

#include <array>
#include <vector>

#include "core/base/status.h"
#include "transports/tcp/tcp_wire.h"
#include "transports/transport.h"

namespace torus::tcp {

struct StripeGroup;

struct StripePiece final : tl::Completion {
  StripeGroup* group = nullptr;
};

// Pooled by the iface (a striped transfer is at least TORUS_TCP_STRIPE_MIN bytes, so one
// pool lookup per transfer is nothing). `left` counts pieces not yet answered; while the
// pieces are still being issued the caller's completion is held back, so it never fires
// inside the get_zcopy/put_zcopy call that started the transfer.
struct StripeGroup {
  tl::Completion* user = nullptr;
  unsigned left = 0;
  bool issuing = false;
  Status status = Status::Ok;  // the first error of any piece
  std::vector<StripeGroup*>* free_list = nullptr;
  std::array<StripePiece, kMaxLanes> pieces{};
};

}  // namespace torus::tcp
