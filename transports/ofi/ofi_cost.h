// Per-provider cost figures and provider quirks (RMA keys on tcp and shm, EFA's RDMA read).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>

#include <string>

#include "transports/transport.h"

namespace torus::ofi {

struct ProviderCost {
  tl::Cost am;
  tl::Cost rma;
};

// Nominal figures per core provider name. tcp, sockets and udp are priced no better than
// torus's own tcp transport (loopback 5 us / 4 GB/s), so where both reach a peer the
// selector keeps torus tcp: these providers add a layer over the same sockets.
ProviderCost provider_cost(const std::string& core_provider);

// Whether fi_read is a real one-sided read. EFA devices without RDMA read emulate it over
// send/recv inside the provider; torus then does not advertise get_zcopy, so rendezvous
// falls back to put (or eager) instead of paying for an emulated read.
bool rma_read_native(const fi_info& info, fid_ep* ep);

// Whether the provider refuses an RMA with a bad key by an error completion and keeps the
// peer usable. libfabric 1.17's tcp provider (under ofi_rxm) closes the connection instead:
// every later operation to that peer fails with FI_ECONNRESET. A forged or stale key from a
// peer must not cut the link (transport.h: AccessDenied, the endpoint still works), so
// fi_read/fi_write are not used on such providers: get goes by tagged messages there, with
// keys checked by torus on the target (ofi_tagged.cpp), and put is not advertised.
bool rma_refusal_keeps_peer(const std::string& core_provider);

// Whether the provider checks an RMA's key, range and rights on the target at all.
// libfabric 1.17's shm moves fi_read/fi_write with CMA straight from the virtual address:
// a forged, stale or out-of-rights key is honoured (or the op never completes). Keys from a
// peer must be refused, never honoured (DESIGN), so there too get goes by tagged messages,
// checked by torus on the target, and put is not advertised.
bool rma_keys_enforced(const std::string& core_provider);

// Whether multi-receive buffers can be used. libfabric 1.17's shm provider advertises
// FI_MULTI_RECV but crashes inside fi_setopt(FI_OPT_MIN_MULTI_RECV), without which a slab's
// tail could be too short for a whole message: shm gets one buffer per message.
bool multi_recv_usable(const std::string& core_provider);

// The largest message the provider delivers in send order, 0 for no limit beyond
// max_msg_size. ofi_rxm sends a message above its eager buffer (FI_OFI_RXM_BUFFER_SIZE,
// 16 KiB by default) by segmentation or rendezvous, and 1.17 lets later eager messages
// overtake it although FI_ORDER_SAS was granted: torus's fragments then arrive out of order.
size_t ordered_msg_limit(const char* prov_name);

// Whether a zero-length fi_read/fi_write completes. libfabric 1.17's shm never completes
// one; there a zero-length get/put completes at once after the local key checks (the
// provider's own check of a stale key is then skipped: nothing is moved anyway).
bool zero_length_rma_completes(const std::string& core_provider);

// Whether the provider reaches only processes on this host. libfabric 1.17's shm writes a
// send into the peer's queue in shared memory whether or not the peer still lives, so a
// keepalive to a dead peer never fails: there each endpoint watches its peer's process
// through a pidfd (from the pid in its address) and fails when it exits.
bool peers_on_this_host(const std::string& core_provider);

}  // namespace torus::ofi
