// Nominal per-provider costs and the EFA RDMA-read check (ofi_cost.h).
#include "transports/ofi/ofi_cost.h"

#include <rdma/fi_ext.h>

#include <cstdlib>
#include <cstring>

namespace torus::ofi {

ProviderCost provider_cost(const std::string& p) {
  // {latency ns, overhead ns, bandwidth B/s, shared}. RDMA figures are the vendors'
  // published orders of magnitude (not measured here: no such hardware on these machines).
  if (p == "efa") return {{15000, 500, 12.5e9, false}, {15000, 300, 12.5e9, false}};
  if (p == "cxi") return {{2500, 300, 25e9, false}, {2500, 200, 25e9, false}};
  if (p == "psm3") return {{3000, 400, 12.5e9, false}, {3500, 300, 12.5e9, false}};
  if (p == "verbs") return {{3000, 400, 12.5e9, false}, {3000, 300, 12.5e9, false}};
  // Duplicates of torus transports, and anything unknown: never better than torus tcp.
  // tcp's get is the tagged get: a request, then rxm's own rendezvous handshake before its
  // read, so a get starts later than sockets' fi_read; on loopback it overtakes 16 KiB
  // active messages at about 100 KiB (64 KiB: 98 vs 70 us; 128 KiB: 105 vs 120 us).
  if (p == "tcp") return {{20000, 3000, 1e9, false}, {60000, 3000, 2e9, false}};
  return {{20000, 3000, 1e9, false}, {30000, 3000, 2e9, false}};
}

bool rma_refusal_keeps_peer(const std::string& core_provider) {
  return core_provider != "tcp";
}

bool rma_keys_enforced(const std::string& core_provider) { return core_provider != "shm"; }

bool multi_recv_usable(const std::string& core_provider) { return core_provider != "shm"; }

size_t ordered_msg_limit(const char* prov_name) {
  if (std::strstr(prov_name, "ofi_rxm") == nullptr) return 0;
  size_t limit = 16384;
  if (const char* v = std::getenv("FI_OFI_RXM_BUFFER_SIZE")) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end != v && *end == '\0' && n >= 1024) limit = static_cast<size_t>(n);
  }
  return limit;
}

bool zero_length_rma_completes(const std::string& core_provider) {
  return core_provider != "shm";
}

bool peers_on_this_host(const std::string& core_provider) {
  return core_provider == "shm";
}

bool rma_read_native(const fi_info& info, fid_ep* ep) {
  if (std::strcmp(info.fabric_attr->prov_name, "efa") != 0) return true;
#ifdef FI_OPT_EFA_EMULATED_READ
  // libfabric >= 1.18 reports whether EFA emulates fi_read (device without RDMA read).
  bool emulated = true;
  size_t len = sizeof(emulated);
  if (fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_EFA_EMULATED_READ, &emulated, &len) == 0)
    return !emulated;
  return false;
#else
  // Older headers cannot ask: assume the read is emulated and let rendezvous use put.
  (void)ep;
  return false;
#endif
}

}  // namespace torus::ofi
