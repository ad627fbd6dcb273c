// Memory-type detection against the real CUDA driver: device, managed, host-registered and
// pinned host memory, and addresses freed and reallocated. Loads libcuda.so.1 itself (torus
// never does); exits 77 with "skipped: no device (<reason>)" where there is no driver or GPU.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "memory/memtype.h"

using namespace torus::mem;

namespace {

// Driver entry points used here, with their documented C signatures (CUresult = int,
// CUdevice = int, CUdeviceptr = unsigned long long, handles = opaque pointers).
struct Cu {
  int (*Init)(unsigned);
  int (*DeviceGetCount)(int*);
  int (*DeviceGet)(int*, int);
  int (*DevicePrimaryCtxRetain)(void**, int);
  int (*DevicePrimaryCtxRelease)(int);
  int (*CtxSetCurrent)(void*);
  int (*MemAlloc)(unsigned long long*, size_t);
  int (*MemFree)(unsigned long long);
  int (*MemAllocManaged)(unsigned long long*, size_t, unsigned);
  int (*MemHostRegister)(void*, size_t, unsigned);
  int (*MemHostUnregister)(void*);
  int (*MemAllocHost)(void**, size_t);
  int (*MemFreeHost)(void*);
  int (*GetErrorString)(int, const char**);
};

int g_failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::fprintf(stderr, "FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

[[noreturn]] void skip(const char* why) {
  std::printf("skipped: no device (%s)\n", why);
  std::exit(77);
}

template <typename T>
bool load(void* lib, const char* name, T& fn) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
  return fn != nullptr;
}

void* dev_ptr(unsigned long long d) { return reinterpret_cast<void*>(static_cast<uintptr_t>(d)); }

}  // namespace

int main() {
  // Before CUDA is loaded, everything is host memory and costs no driver call.
  static char before[64];
  EXPECT(!reprobe_cuda_driver());
  EXPECT(detect_mem_type(before) == MemType::Host);

  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) skip(dlerror());
  Cu cu{};
  const bool ok = load(lib, "cuInit", cu.Init) && load(lib, "cuDeviceGetCount", cu.DeviceGetCount) &&
                  load(lib, "cuDeviceGet", cu.DeviceGet) &&
                  load(lib, "cuDevicePrimaryCtxRetain", cu.DevicePrimaryCtxRetain) &&
                  load(lib, "cuDevicePrimaryCtxRelease_v2", cu.DevicePrimaryCtxRelease) &&
                  load(lib, "cuCtxSetCurrent", cu.CtxSetCurrent) &&
                  load(lib, "cuMemAlloc_v2", cu.MemAlloc) && load(lib, "cuMemFree_v2", cu.MemFree) &&
                  load(lib, "cuMemAllocManaged", cu.MemAllocManaged) &&
                  load(lib, "cuMemHostRegister_v2", cu.MemHostRegister) &&
                  load(lib, "cuMemHostUnregister", cu.MemHostUnregister) &&
                  load(lib, "cuMemAllocHost_v2", cu.MemAllocHost) &&
                  load(lib, "cuMemFreeHost", cu.MemFreeHost) &&
                  load(lib, "cuGetErrorString", cu.GetErrorString);
  if (!ok) skip("libcuda.so.1 lacks a driver entry point this test uses");
  if (int rc = cu.Init(0); rc != 0) {
    static char why[96];
    std::snprintf(why, sizeof(why), "cuInit failed with CUresult %d", rc);
    skip(why);
  }
  int count = 0;
  if (cu.DeviceGetCount(&count) != 0 || count == 0) skip("cuDeviceGetCount reports no GPU");
  int dev = 0;
  void* ctx = nullptr;
  EXPECT(cu.DeviceGet(&dev, 0) == 0);
  EXPECT(cu.DevicePrimaryCtxRetain(&ctx, dev) == 0);
  EXPECT(cu.CtxSetCurrent(ctx) == 0);

  // The process loaded CUDA: a reprobe finds it (a detection call would, within
  // kProbeInterval calls).
  EXPECT(reprobe_cuda_driver());
  EXPECT(detect_mem_type(before) == MemType::Host);

  constexpr size_t kLen = 8 << 20;
  unsigned long long d = 0;
  EXPECT(cu.MemAlloc(&d, kLen) == 0);
  const MemInfo di = query_mem_info(dev_ptr(d + 4096));
  EXPECT(di.type == MemType::CudaDevice);
  EXPECT(di.device == 0);
  EXPECT(di.buffer_id != 0);
  EXPECT(di.base == d);
  EXPECT(di.size >= kLen);
  EXPECT(detect_mem_type(dev_ptr(d)) == MemType::CudaDevice);  // a cached-range hit

  // Free and reallocate: the allocator usually hands the same address back, with a new id.
  EXPECT(cu.MemFree(d) == 0);
  unsigned long long d2 = 0;
  EXPECT(cu.MemAlloc(&d2, kLen) == 0);
  const MemInfo di2 = query_mem_info(dev_ptr(d2));
  EXPECT(di2.type == MemType::CudaDevice);
  EXPECT(di2.buffer_id != di.buffer_id);
  std::printf("device realloc: %s address, buffer id %llu -> %llu\n",
              d2 == d ? "same" : "different", static_cast<unsigned long long>(di.buffer_id),
              static_cast<unsigned long long>(di2.buffer_id));
  EXPECT(cu.MemFree(d2) == 0);
  // Same address, managed this time.
  unsigned long long m = 0;
  EXPECT(cu.MemAllocManaged(&m, kLen, 1 /*CU_MEM_ATTACH_GLOBAL*/) == 0);
  const MemInfo mi = query_mem_info(dev_ptr(m));
  EXPECT(mi.type == MemType::CudaManaged);
  std::printf("managed after free: %s address\n", m == d2 ? "same" : "different");
  EXPECT(cu.MemFree(m) == 0);

  // Host memory registered with CUDA, then unregistered: host again.
  void* h = std::aligned_alloc(4096, kLen);
  std::memset(h, 1, kLen);
  EXPECT(detect_mem_type(h) == MemType::Host);
  EXPECT(cu.MemHostRegister(h, kLen, 0) == 0);
  EXPECT(detect_mem_type(static_cast<char*>(h) + 100) == MemType::CudaHostRegistered);
  EXPECT(cu.MemHostUnregister(h) == 0);
  EXPECT(detect_mem_type(static_cast<char*>(h) + 100) == MemType::Host);
  std::free(h);
  void* pinned = nullptr;
  EXPECT(cu.MemAllocHost(&pinned, kLen) == 0);
  EXPECT(detect_mem_type(pinned) == MemType::CudaHostRegistered);
  EXPECT(cu.MemFreeHost(pinned) == 0);

  const MemtypeCounters c = memtype_counters();
  std::printf("driver queries %llu, range-cache hits %llu, stale %llu\n",
              static_cast<unsigned long long>(c.driver_queries),
              static_cast<unsigned long long>(c.cache_hits),
              static_cast<unsigned long long>(c.cache_stale));
  cu.DevicePrimaryCtxRelease(dev);
  if (g_failures != 0) {
    std::printf("%d check(s) failed\n", g_failures);
    return 1;
  }
  std::printf("cuda memtype: all checks passed\n");
  return 0;
}
