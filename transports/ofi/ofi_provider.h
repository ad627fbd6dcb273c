// Provider discovery: the fi_getinfo hints torus needs (RDM, MSG|RMA, every MR mode and
// context mode it can honour), the default preference order, and the choice a setting makes.
#pragma once

#include <rdma/fabric.h>

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "transports/ofi/ofi_lib.h"

namespace torus::ofi {

// An fi_info exists only once libfabric is loaded, so the deleter can count on it.
struct InfoDeleter {
  void operator()(fi_info* i) const noexcept {
    if (i != nullptr) fabric_api()->freeinfo(i);
  }
};
using InfoPtr = std::unique_ptr<fi_info, InfoDeleter>;

// Providers tried when nothing is named, best first. Their core names (before ';').
inline constexpr const char* kPreferred[] = {"efa", "cxi", "psm3", "verbs"};
// Providers that duplicate a torus transport (tcp, shm): used only when named.
inline constexpr const char* kDuplicates[] = {"tcp", "sockets", "udp", "shm"};

// The hints torus asks with, restricted to provider `name` ("" = any). The caller frees.
InfoPtr make_hints(const std::string& name);

// The core provider of "tcp;ofi_rxm" is "tcp": the one the user names.
std::string core_name(const char* prov_name);

// What to open: the named provider (TORUS_OFI_PROVIDER, else FI_PROVIDER), or the first of
// kPreferred found. Not found: an error whose message says, per provider tried, what
// fi_getinfo answered ("efa: fi_getinfo -61 (No data available)"), and which duplicates
// exist but were left alone. `name` "" means the default order.
// Whether the kernel lists a device some provider of the default order could drive; when not,
// the default choice fails at once without asking libfabric.
bool rdma_devices_present(std::string* why);
Result<InfoPtr> choose_provider(const std::string& name);

// The name a setting selects: TORUS_OFI_PROVIDER from `config_value`, else FI_PROVIDER from
// the environment, else "" (the default order).
std::string requested_provider(const std::string& config_value);

// One line per RDM provider fi_getinfo lists (name, domain, MR mode, limits), for torus_info.
std::vector<std::string> describe_providers();

// "FI_MR_LOCAL|FI_MR_VIRT_ADDR" for a mode mask.
std::string mr_mode_string(int mode);

}  // namespace torus::ofi
