// Pinned host chunks through cuMemHostAlloc.
#include "memory/cuda_pinned_allocator.h"

#include <string>

#include "core/base/log.h"

namespace torus::mem {

Result<void*> CudaPinnedAllocator::alloc(size_t bytes) {
  if (driver_.mem_host_alloc == nullptr || driver_.mem_free_host == nullptr)
    return make_error(Status::Unsupported,
                      "the loaded CUDA driver has no cuMemHostAlloc/cuMemFreeHost");
  void* p = nullptr;
  const int rc = driver_.mem_host_alloc(
      &p, bytes, cuda::kHostAllocPortable | cuda::kHostAllocDeviceMap);
  if (rc != cuda::kSuccess) {
    std::string why = "cuMemHostAlloc(" + std::to_string(bytes) + ") failed with CUresult " +
                      std::to_string(rc);
    if (rc == cuda::kErrorInvalidContext) why += " (no current CUDA context in this thread)";
    return make_error(Status::NoMemory, why);
  }
  return p;
}

void CudaPinnedAllocator::free(void* p, size_t /*bytes*/) noexcept {
  const int rc = driver_.mem_free_host(p);
  if (rc != cuda::kSuccess) TORUS_WARN("cuMemFreeHost failed with CUresult %d", rc);
}

}  // namespace torus::mem
