// Finding an already-loaded CUDA driver without loading one.
#include "memory/cuda_driver.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <mutex>

#include "core/base/log.h"

namespace torus::mem::cuda {
namespace {

std::mutex g_probe_mutex;
unsigned long long g_last_adds = ~0ull;  // guarded by g_probe_mutex
DriverApi g_real;                        // written once, before g_found is set
std::atomic<bool> g_found{false};

// glibc counts every object ever loaded (dlpi_adds); unchanged means no dlopen happened, so
// libcuda cannot have appeared. Visiting the first object is enough to read it.
unsigned long long objects_added() noexcept {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;
      },
      &adds);
  return adds;
}

}  // namespace

const DriverApi* probe_loaded_driver() noexcept {
  if (g_found.load(std::memory_order_acquire)) return &g_real;
  const unsigned long long adds = objects_added();
  std::lock_guard<std::mutex> lock(g_probe_mutex);
  if (g_found.load(std::memory_order_relaxed)) return &g_real;
  if (adds == g_last_adds) return nullptr;
  g_last_adds = adds;
  // RTLD_NOLOAD: a process that never touched CUDA must not pay for (or need) the driver.
  // The handle is never closed, so the entry points stay valid.
  void* lib = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
  if (lib == nullptr) return nullptr;
  void* fn = dlsym(lib, "cuPointerGetAttributes");
  if (fn == nullptr) {
    TORUS_WARN("libcuda.so.1 is loaded but lacks cuPointerGetAttributes (%s); CUDA memory "
               "cannot be detected: pass memory types explicitly",
               dlerror());
    return nullptr;
  }
  g_real.pointer_get_attributes =
      reinterpret_cast<decltype(g_real.pointer_get_attributes)>(fn);
  // The driver exports versioned names (cuMemHostAlloc is v1 only; cuMemFreeHost too).
  g_real.mem_host_alloc =
      reinterpret_cast<decltype(g_real.mem_host_alloc)>(dlsym(lib, "cuMemHostAlloc"));
  g_real.mem_free_host =
      reinterpret_cast<decltype(g_real.mem_free_host)>(dlsym(lib, "cuMemFreeHost"));
  g_found.store(true, std::memory_order_release);
  TORUS_INFO("CUDA driver loaded by the process: memory-type detection asks it from now on");
  return &g_real;
}

}  // namespace torus::mem::cuda
