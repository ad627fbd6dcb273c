// The self transport: loopback inside one worker. Active messages are queued and delivered
// from progress(); get/put are memcpy checked against the iface's own registrations.
#pragma once

#include <memory>

#include "transports/transport.h"

namespace torus::self {

// The registry's factory (transports/registry.cpp). The module has one device, "memory".
std::unique_ptr<tl::Transport> make_transport();

}  // namespace torus::self
