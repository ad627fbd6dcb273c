// Registration (fi_mr_reg, FI_MR_ENDPOINT binding), the cache's registrar, remote regions
// and their packed keys.
#include "transports/ofi/ofi_mr.h"

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <sys/random.h>
#include <sys/uio.h>

#include <cstring>

#include "core/base/log.h"
#include "memory/memtype.h"
#include "transports/ofi/ofi_lib.h"

namespace torus::ofi {
namespace {

uint64_t random_key(size_t key_size) {
  uint64_t v = 0;
  while (v == 0) {
    if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) v = 0;
    if (key_size < 8) v &= (uint64_t{1} << (8 * key_size)) - 1;
  }
  return v;
}

}  // namespace

Result<fid_mr*> register_mr(const MrContext& ctx, const void* addr, size_t len,
                            uint64_t access) {
  fid_mr* mr = nullptr;
  int rc = -FI_ENOKEY;
  // A branch while CUDA is not loaded; managed memory registers as host memory (the
  // driver migrates it), device memory needs the provider's HMEM support.
  const mem::MemInfo info = mem::query_mem_info(addr);
  const bool device = info.type == mem::MemType::CudaDevice;
  if (device && !ctx.hmem)
    return make_error(Status::Unsupported,
                      "ofi: CUDA device memory, but the provider did not grant FI_HMEM");
  // Without FI_MR_PROV_KEY we choose the key; a random one is the region's secret. A
  // collision with a live key (-FI_ENOKEY) is retried with another.
  for (int attempt = 0; attempt < 4 && rc == -FI_ENOKEY; ++attempt) {
    if (!device) {
      rc = fi_mr_reg(ctx.domain, addr, len, access, 0, random_key(ctx.key_size), 0, &mr,
                     nullptr);
      continue;
    }
    iovec iov{const_cast<void*>(addr), len};
    fi_mr_attr attr{};
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = access;
    attr.requested_key = random_key(ctx.key_size);
    attr.iface = FI_HMEM_CUDA;
    attr.device.cuda = info.device;
    rc = fi_mr_regattr(ctx.domain, &attr, 0, &mr);
  }
  if (rc != 0)
    return make_error(rc == -FI_ENOMEM ? Status::NoMemory : Status::IoError,
                      "fi_mr_reg(" + std::to_string(len) + " bytes): " + ofi_strerror(-rc));
  if ((ctx.mr_mode & FI_MR_ENDPOINT) != 0) {
    rc = fi_mr_bind(mr, &ctx.ep->fid, 0);
    if (rc == 0) rc = fi_mr_enable(mr);
    if (rc != 0) {
      fi_close(&mr->fid);
      return make_error(Status::IoError, std::string("fi_mr_bind/enable: ") + ofi_strerror(-rc));
    }
  }
  return mr;
}

Result<void*> LocalRegistrar::reg(void* addr, size_t len, uint32_t access) {
  (void)access;  // always kLocalAccess
  auto mr = register_mr(ctx_, addr, len, kLocalAccess);
  if (!mr) return mr.error();
  return static_cast<void*>(mr.value());
}

void LocalRegistrar::dereg(void* handle) noexcept {
  fi_close(&static_cast<fid_mr*>(handle)->fid);
}

RemoteRegion::RemoteRegion(fid_mr* mr, void* addr, size_t len, bool virt_addr)
    : mr_(mr), addr_(addr), len_(len), virt_addr_(virt_addr) {}

RemoteRegion::~RemoteRegion() { fi_close(&mr_->fid); }

void RemoteRegion::pack_rkey(std::span<std::byte> out) const {
  PackedRkey k{};
  k.key = fi_mr_key(mr_);
  k.base = reinterpret_cast<uintptr_t>(addr_);
  k.length = len_;
  k.flags = virt_addr_ ? kRkeyVirtAddr : 0;
  k.version = kVersion;
  k.check = rkey_check(k);
  if (out.size() >= sizeof(k)) std::memcpy(out.data(), &k, sizeof(k));
}

Status resolve_rkey(std::span<const std::byte> rkey, uint64_t addr, size_t len, uint64_t* key,
                    uint64_t* target_addr) noexcept {
  PackedRkey k;
  if (rkey.size() != sizeof(k)) return Status::InvalidParam;
  std::memcpy(&k, rkey.data(), sizeof(k));
  if (k.version != kVersion || k.check != rkey_check(k)) return Status::AccessDenied;
  // The provider checks the range too; checking here keeps a wrapping or negative offset
  // from ever being computed.
  if (addr < k.base || len > k.length || addr - k.base > k.length - len)
    return Status::AccessDenied;
  *key = k.key;
  *target_addr = (k.flags & kRkeyVirtAddr) != 0 ? addr : addr - k.base;
  return Status::Ok;
}

}  // namespace torus::ofi
