// An embedder's active message (Endpoint::am_send): the sender's uid, the handler id and a
// user header before the payload, in one AM on the AM lane.
#pragma once

#include <span>

#include "protocols/proto_endpoint.h"

namespace torus::proto {

inline constexpr size_t kMaxUserAmHeader = 64;

// Sends op's payload (buffer, length) to handler `id` with `header`, completing op;
// NoResource under back-pressure.
Status send_user_am(ProtoEndpoint& ep, Op& op, uint8_t id, std::span<const std::byte> header);

}  // namespace torus::proto
