// Memory-type detection: host, CUDA device, CUDA managed, CUDA host-registered. Costs a
// branch on host memory while the process has not loaded the CUDA driver.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "memory/cuda_driver.h"

namespace torus::mem {

// Host..CudaHostRegistered have the numeric values of tl::MemType (transports/transport.h).
enum class MemType : uint8_t {
  Host = 0,
  CudaDevice = 1,
  CudaManaged = 2,
  CudaHostRegistered = 3,  // host memory pinned or registered with CUDA
  Unknown = 255,           // as a hint: "detect it"
};

const char* mem_type_name(MemType t) noexcept;

struct MemInfo {
  MemType type = MemType::Host;
  int device = -1;             // CUDA device ordinal
  uint64_t buffer_id = 0;      // CUDA's process-wide unique id of the allocation
  void* context = nullptr;     // CUcontext
  uintptr_t base = 0;          // the allocation containing the pointer (CUDA memory only)
  size_t size = 0;
};

struct MemtypeCounters {
  uint64_t driver_queries = 0;  // full cuPointerGetAttributes queries
  uint64_t cache_hits = 0;      // known device range, buffer id still the same
  uint64_t cache_stale = 0;     // known range whose buffer id changed (freed, reallocated)
};

namespace detail {
extern std::atomic<const cuda::DriverApi*> g_driver;
// Calls until the next probe for a driver loaded meanwhile. __thread (constant-initialised,
// so no TLS wrapper call) and initial-exec (no __tls_get_addr when torus is a shared
// library) keep the fast path to one decrement.
extern __thread int t_probe_countdown __attribute__((tls_model("initial-exec")));
inline constexpr int kProbeInterval = 256;
bool probe_slow() noexcept;
MemInfo query_slow(const cuda::DriverApi* api, const void* ptr) noexcept;
}  // namespace detail

// True when the process has loaded the CUDA driver. Re-probed by each thread on its first
// call and then every kProbeInterval calls, and always by reprobe_cuda_driver(): a driver
// loaded after torus started is noticed within that many calls (see docs/memory.md).
inline bool cuda_may_be_loaded() noexcept {
  if (detail::g_driver.load(std::memory_order_acquire) != nullptr) return true;
  if (--detail::t_probe_countdown > 0) return false;
  return detail::probe_slow();
}

// Full information on the memory at `ptr`. A hint other than Unknown is returned as is, with
// no detection: callers that know their buffers skip the cost and any doubt.
inline MemInfo query_mem_info(const void* ptr, MemType hint = MemType::Unknown) noexcept {
  if (hint != MemType::Unknown) return MemInfo{.type = hint};
  if (__builtin_expect(!cuda_may_be_loaded(), 1)) return MemInfo{};
  return detail::query_slow(detail::g_driver.load(std::memory_order_acquire), ptr);
}

inline MemType detect_mem_type(const void* ptr, MemType hint = MemType::Unknown) noexcept {
  if (hint != MemType::Unknown) return hint;
  if (__builtin_expect(!cuda_may_be_loaded(), 1)) return MemType::Host;
  return query_mem_info(ptr).type;
}

// Probes for the driver now, whatever the countdown says: call where CUDA may just have been
// loaded (context creation, before a first send of a buffer of unknown type).
bool reprobe_cuda_driver() noexcept;

// Replaces the driver table (nullptr: back to probing for the real one) and empties the range
// cache. For tests that drive detection without a GPU.
void set_cuda_driver_for_testing(const cuda::DriverApi* api) noexcept;

MemtypeCounters memtype_counters() noexcept;
std::string memtype_status_text();  // for torus_info

}  // namespace torus::mem
