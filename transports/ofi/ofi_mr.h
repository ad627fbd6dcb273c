// Memory registration on an ofi domain, written for the strictest MR modes: local buffers
// through the registration cache (FI_MR_LOCAL descriptors), remote-accessible regions
// registered one by one with exactly the rights asked, bound to the endpoint under
// FI_MR_ENDPOINT, keyed by a random requested key unless the provider picks (FI_MR_PROV_KEY).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstdint>
#include <span>

#include "core/base/status.h"
#include "memory/rcache.h"
#include "transports/ofi/ofi_wire.h"
#include "transports/transport.h"

namespace torus::ofi {

// What registration needs to know of the iface.
struct MrContext {
  fid_domain* domain = nullptr;
  fid_ep* ep = nullptr;       // bound to each region under FI_MR_ENDPOINT
  int mr_mode = 0;
  size_t key_size = 8;        // domain_attr->mr_key_size
  bool hmem = false;          // the provider granted FI_HMEM: CUDA memory registers
};

// fi_mr_reg (host memory) or fi_mr_regattr with FI_HMEM_CUDA and the device ordinal (CUDA
// device memory, where the provider granted FI_HMEM; Unsupported where not), then under
// FI_MR_ENDPOINT fi_mr_bind/fi_mr_enable. `access` is in FI_* bits.
Result<fid_mr*> register_mr(const MrContext& ctx, const void* addr, size_t len,
                            uint64_t access);

// The registration cache's registrar for local buffers (get destinations, put sources, the
// bounce pool): one access mask, so every local use shares cached regions.
class LocalRegistrar final : public mem::Registrar {
 public:
  explicit LocalRegistrar(const MrContext& ctx) : ctx_(ctx) {}
  Result<void*> reg(void* addr, size_t len, uint32_t access) override;
  void dereg(void* handle) noexcept override;

 private:
  const MrContext& ctx_;
};
inline constexpr uint64_t kLocalAccess = FI_SEND | FI_RECV | FI_READ | FI_WRITE;

// A region a peer may read or write through its packed key. Never cached: destroying it
// closes the fi_mr, so its key is dead at once (a stale key is refused by the provider).
class RemoteRegion final : public tl::MemRegion {
 public:
  RemoteRegion(fid_mr* mr, void* addr, size_t len, bool virt_addr);
  ~RemoteRegion() override;
  RemoteRegion(const RemoteRegion&) = delete;
  RemoteRegion& operator=(const RemoteRegion&) = delete;
  void* address() const override { return addr_; }
  size_t length() const override { return len_; }
  void pack_rkey(std::span<std::byte> out) const override;

 private:
  fid_mr* mr_;
  void* addr_;
  size_t len_;
  bool virt_addr_;
};

// Validates a packed key for [addr, addr + len): size, version, check, range. On success
// sets the key and the address to give fi_read/fi_write (virtual address or offset).
Status resolve_rkey(std::span<const std::byte> rkey, uint64_t addr, size_t len, uint64_t* key,
                    uint64_t* target_addr) noexcept;

}  // namespace torus::ofi
