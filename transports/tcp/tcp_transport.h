// The tcp transport: always available where there is a network interface (loopback
// included); the fallback between hosts without an RDMA fabric. README.md has the picture.
#pragma once

#include <memory>

#include "transports/transport.h"

namespace torus::tcp {

// The registry's factory (transports/registry.cpp lists it as "tcp"). One device, "tcp",
// covering every interface TORUS_TCP_IFACES / TORUS_NET_DEVICES allows.
std::unique_ptr<tl::Transport> make_transport();

}  // namespace torus::tcp
