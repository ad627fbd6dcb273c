// libfabric's exported entry points, reached through dlopen on first use instead of linking
// the library: Debian's libfabric links the PSM libraries, whose constructors calibrate a
// timer by sleeping (~0.2 s measured here), so linking it made every process that loads
// libmpi start 0.2 s late, on machines with no fabric at all. Everything else torus calls
// (fi_domain, fi_send, fi_cq_read, ...) is an inline wrapper over the objects' ops tables.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>
#include <string>

namespace torus::ofi {

struct FabricApi {
  int (*getinfo)(uint32_t version, const char* node, const char* service, uint64_t flags,
                 const fi_info* hints, fi_info** info);
  void (*freeinfo)(fi_info* info);
  fi_info* (*dupinfo)(const fi_info* info);
  int (*fabric)(fi_fabric_attr* attr, fid_fabric** fabric, void* context);
  const char* (*strerror)(int errnum);
};

// The entry points, loading libfabric.so.1 on the first call; nullptr when it cannot be
// loaded (*why then says why). Thread-safe; the library stays loaded.
const FabricApi* fabric_api(std::string* why = nullptr);

// fi_strerror(err), or a fixed text when libfabric is not loaded.
const char* ofi_strerror(int err);

}  // namespace torus::ofi
