// Pool chunks of pinned (page-locked, device-mapped) host memory from the CUDA driver, for the
// GPU staging pipeline: copies between device and pinned host memory run at full PCIe/NVLink
// speed and may be asynchronous, which pageable memory prevents.
#pragma once

#include "memory/buffer_pool.h"
#include "memory/cuda_driver.h"

namespace torus::mem {

class CudaPinnedAllocator final : public ChunkAllocator {
 public:
  // `driver`: the loaded driver's table (cuda::probe_loaded_driver()) or a test's fake.
  explicit CudaPinnedAllocator(const cuda::DriverApi& driver) noexcept : driver_(driver) {}
  // Fails with Unsupported when the driver lacks the calls, and with NoMemory carrying the
  // driver's code otherwise (e.g. no current context: the caller must make one current).
  Result<void*> alloc(size_t bytes) override;
  void free(void* p, size_t bytes) noexcept override;
  const char* name() const noexcept override { return "cuda-pinned"; }

 private:
  const cuda::DriverApi& driver_;
};

}  // namespace torus::mem
