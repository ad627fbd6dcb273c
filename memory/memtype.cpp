// Memory-type detection through the CUDA driver, with a cache of known CUDA ranges that is
// revalidated by buffer id on every hit.
#include "memory/memtype.h"

#include <cstring>
#include <mutex>

#include "core/base/log.h"
#include "memory/interval_map.h"

namespace torus::mem {
namespace detail {
std::atomic<const cuda::DriverApi*> g_driver{nullptr};
__thread int t_probe_countdown __attribute__((tls_model("initial-exec"))) = 0;
}  // namespace detail

namespace {

// A bounded cache: emptied when full, since a process juggling more CUDA allocations than
// this pays one driver query per miss, which is what it would pay without a cache.
constexpr size_t kMaxRanges = 1024;

struct RangeCache {
  std::mutex mutex;
  IntervalMap<MemInfo> ranges;
  MemtypeCounters counters;
  bool injected = false;  // a test table is in place: do not probe for the real driver
};

// Never destroyed: teardown at exit() may still query or invalidate ranges after this
// file's statics would have gone.
RangeCache& cache() {
  static auto* c = new RangeCache;
  return *c;
}

uint32_t low32(uint64_t slot) noexcept {
  // Attributes are written with their own width (bool, int, pointer) into a zeroed 8-byte
  // slot; on little-endian x86-64 and aarch64 the low bytes hold the value.
  uint32_t v;
  std::memcpy(&v, &slot, sizeof(v));
  return v;
}

MemInfo full_query(const cuda::DriverApi* api, uintptr_t p) noexcept {
  int attrs[] = {cuda::kAttrMemoryType,    cuda::kAttrBufferId,       cuda::kAttrIsManaged,
                 cuda::kAttrDeviceOrdinal, cuda::kAttrContext,        cuda::kAttrRangeStartAddr,
                 cuda::kAttrRangeSize};
  constexpr unsigned kN = sizeof(attrs) / sizeof(attrs[0]);
  uint64_t slots[kN] = {};
  void* data[kN];
  for (unsigned i = 0; i < kN; ++i) data[i] = &slots[i];
  const int rc = api->pointer_get_attributes(kN, attrs, data, p);
  MemInfo info;
  if (rc != cuda::kSuccess) {
    // No context, driver not initialised, or not a CUDA pointer: no CUDA memory can be here.
    TORUS_TRACE("cuPointerGetAttributes(%#lx) = %d: host memory", static_cast<unsigned long>(p),
                rc);
    return info;
  }
  const uint32_t mem_type = low32(slots[0]);
  const bool managed = low32(slots[2]) != 0;
  if (managed || mem_type == cuda::kMemoryTypeUnified) info.type = MemType::CudaManaged;
  else if (mem_type == cuda::kMemoryTypeDevice) info.type = MemType::CudaDevice;
  else if (mem_type == cuda::kMemoryTypeHost) info.type = MemType::CudaHostRegistered;
  else return info;  // plain pageable host memory: the driver leaves everything zero
  info.buffer_id = slots[1];
  info.device = static_cast<int>(low32(slots[3]));
  info.context = reinterpret_cast<void*>(slots[4]);
  info.base = static_cast<uintptr_t>(slots[5]);
  info.size = static_cast<size_t>(slots[6]);
  return info;
}

}  // namespace

namespace detail {

bool probe_slow() noexcept {
  t_probe_countdown = kProbeInterval;
  {
    RangeCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.injected) return g_driver.load() != nullptr;
  }
  const cuda::DriverApi* api = cuda::probe_loaded_driver();
  if (api == nullptr) return false;
  g_driver.store(api, std::memory_order_release);
  return true;
}

MemInfo query_slow(const cuda::DriverApi* api, const void* ptr) noexcept {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  RangeCache& c = cache();
  MemInfo known;
  bool have = false;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.ranges.find_covering(p, p + 1);
    if (it != c.ranges.end()) {
      known = it->second.value;
      have = true;
    }
  }
  if (have) {
    // The range may have been freed and the address handed out again (cudaFree + cudaMalloc
    // at the same address): only an unchanged buffer id proves it is the same allocation.
    uint64_t id = 0;
    int attr = cuda::kAttrBufferId;
    void* data = &id;
    if (api->pointer_get_attributes(1, &attr, &data, p) == cuda::kSuccess && id != 0 &&
        id == known.buffer_id) {
      std::lock_guard<std::mutex> lock(c.mutex);
      ++c.counters.cache_hits;
      return known;
    }
  }
  const MemInfo info = full_query(api, p);
  std::lock_guard<std::mutex> lock(c.mutex);
  ++c.counters.driver_queries;
  if (have) {
    ++c.counters.cache_stale;
    c.ranges.for_each_overlapping(p, p + 1, [&](auto it) { c.ranges.erase(it); });
  }
  if (info.type != MemType::Host && info.size > 0 && info.base <= p &&
      p < info.base + info.size) {
    c.ranges.for_each_overlapping(info.base, info.base + info.size,
                                  [&](auto it) { c.ranges.erase(it); });
    if (c.ranges.size() >= kMaxRanges) c.ranges.clear();
    c.ranges.insert(info.base, info.base + info.size, info);
  }
  return info;
}

}  // namespace detail

const char* mem_type_name(MemType t) noexcept {
  switch (t) {
    case MemType::Host: return "host";
    case MemType::CudaDevice: return "cuda";
    case MemType::CudaManaged: return "cuda-managed";
    case MemType::CudaHostRegistered: return "cuda-host";
    case MemType::Unknown: return "unknown";
  }
  return "?";
}

bool reprobe_cuda_driver() noexcept {
  if (detail::g_driver.load(std::memory_order_acquire) != nullptr) return true;
  return detail::probe_slow();
}

void set_cuda_driver_for_testing(const cuda::DriverApi* api) noexcept {
  RangeCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.ranges.clear();
  c.counters = {};
  c.injected = api != nullptr;
  detail::g_driver.store(api, std::memory_order_release);
  detail::t_probe_countdown = 0;
}

MemtypeCounters memtype_counters() noexcept {
  RangeCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.counters;
}

std::string memtype_status_text() {
  const MemtypeCounters m = memtype_counters();
  const bool loaded = reprobe_cuda_driver();
  return std::string("memory types: ") +
         (loaded ? "CUDA driver loaded (cuPointerGetAttributes)"
                 : "host only (the process has not loaded libcuda.so.1)") +
         "\n  driver queries " + std::to_string(m.driver_queries) + ", range-cache hits " +
         std::to_string(m.cache_hits) + ", stale ranges " + std::to_string(m.cache_stale);
}

}  // namespace torus::mem
