// The protocol objects, one per file; registry.cpp lists them. Only the registry and a
// protocol's own tests include this: everything else reaches a protocol through protocol().
#pragma once

#include "protocols/protocol.h"

namespace torus::proto {

const Protocol& eager_short_protocol() noexcept;  // eager_short.cpp
const Protocol& eager_bcopy_protocol() noexcept;  // eager_bcopy.cpp
const Protocol& rndv_get_protocol() noexcept;     // rndv_get.cpp
const Protocol& rndv_put_protocol() noexcept;     // rndv_put.cpp

}  // namespace torus::proto
