// Which host names are this machine, and which of its addresses a remote host can reach
// (where the PMI_PORT listener is advertised to remote ranks).
#pragma once

#include <string>

#include "core/base/status.h"

namespace torus::launcher {

// This machine's name (gethostname), for messages.
std::string this_host_name();

// True for "localhost", this machine's name, and any name or address that resolves to a
// loopback address or to an address of one of this machine's interfaces.
bool is_local_host(const std::string& name);

// The IPv4 address of this machine that `remote` should connect to: the address of the
// interface on the same subnet as one of remote's resolved addresses, else the source address
// the routing table picks for it. Fails when remote does not resolve.
Result<std::string> address_facing(const std::string& remote);

}  // namespace torus::launcher
