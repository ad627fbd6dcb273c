// The CUDA driver entry points memory-type detection needs, as a table: the real one comes
// from a libcuda.so.1 the process already loaded (never loaded by us, never linked), tests
// inject fakes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torus::mem::cuda {

// Values from cuda.h (CUpointer_attribute, CUmemorytype, CUresult). They are driver ABI,
// stable since CUDA 4-10, and declaring them keeps torus buildable without a toolkit.
inline constexpr int kAttrContext = 1;
inline constexpr int kAttrMemoryType = 2;
inline constexpr int kAttrBufferId = 7;
inline constexpr int kAttrIsManaged = 8;
inline constexpr int kAttrDeviceOrdinal = 9;
inline constexpr int kAttrRangeStartAddr = 11;
inline constexpr int kAttrRangeSize = 12;
inline constexpr uint32_t kMemoryTypeHost = 1;
inline constexpr uint32_t kMemoryTypeDevice = 2;
inline constexpr uint32_t kMemoryTypeUnified = 4;
inline constexpr int kSuccess = 0;
inline constexpr int kErrorInvalidContext = 201;
// cuMemHostAlloc flags: usable from every context, and mapped into the device's space.
inline constexpr unsigned kHostAllocPortable = 0x01;
inline constexpr unsigned kHostAllocDeviceMap = 0x02;

struct DriverApi {
  // cuPointerGetAttributes(numAttributes, attributes, data, ptr): CUresult. Unlike
  // cuPointerGetAttribute it succeeds on plain host memory and leaves the attributes zero.
  int (*pointer_get_attributes)(unsigned num, int* attributes, void** data,
                                unsigned long long ptr) = nullptr;
  // cuMemHostAlloc(pp, bytes, flags) / cuMemFreeHost(p): pinned host memory for the GPU
  // staging pools. Optional: nullptr when the driver lacks them.
  int (*mem_host_alloc)(void** pp, size_t bytes, unsigned flags) = nullptr;
  int (*mem_free_host)(void* p) = nullptr;
};

// The table of a libcuda.so.1 this process has loaded, or nullptr. Costs a dl_iterate_phdr
// call (~80 ns); a dlopen(RTLD_NOLOAD) (~40 us: it searches the library path) only when the
// set of loaded objects changed since the last call. Once found, the driver is kept loaded
// (we hold a reference) and the same table is returned.
const DriverApi* probe_loaded_driver() noexcept;

}  // namespace torus::mem::cuda
