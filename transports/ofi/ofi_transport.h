// The ofi transport: libfabric's RDM endpoints (EFA, cxi, psm3, verbs;ofi_rxm, and the tcp,
// sockets and shm providers when named). README.md has the picture.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transports/transport.h"

namespace torus::ofi {

// The registry's factory (transports/registry.cpp lists it as "ofi"). One device: the
// provider TORUS_OFI_PROVIDER names (read from the process environment by query(), and
// from the iface's configuration by open()), else the first of efa, cxi, psm3, verbs.
std::unique_ptr<tl::Transport> make_transport();

// For torus_info: one line per RDM provider found, with MR mode and limits, and which one
// the current setting picks.
std::vector<std::string> provider_report();

}  // namespace torus::ofi
