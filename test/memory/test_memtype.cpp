// Memory-type detection: host memory of every kind with CUDA not loaded, and the CUDA paths
// through an injected fake driver table (device, managed, host-registered, an address freed
// and reallocated with a new buffer id, driver errors, hints).
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "memory/memtype.h"

using namespace torus::mem;

namespace {

// A fake driver: allocations by base address, each with the attributes the real driver
// reports. Plain host memory gets zeroed attributes and CUDA_SUCCESS, like the real one.
struct FakeAlloc {
  size_t size;
  uint32_t mem_type;  // cuda::kMemoryType*
  bool managed;
  uint64_t buffer_id;
  int device;
};
std::map<uintptr_t, FakeAlloc> g_allocs;
int g_calls = 0;
int g_fail = 0;  // a CUresult to return, 0 = succeed

int fake_get_attributes(unsigned n, int* attrs, void** data, unsigned long long ptr) {
  ++g_calls;
  if (g_fail != 0) return g_fail;
  const FakeAlloc* a = nullptr;
  uintptr_t base = 0;
  auto it = g_allocs.upper_bound(ptr);
  if (it != g_allocs.begin()) {
    --it;
    if (ptr < it->first + it->second.size) {
      a = &it->second;
      base = it->first;
    }
  }
  for (unsigned i = 0; i < n; ++i) {
    // Written with the real driver's widths: unsigned int, bool, int, pointers, 64-bit ids.
    switch (attrs[i]) {
      case cuda::kAttrMemoryType: *static_cast<unsigned*>(data[i]) = a ? a->mem_type : 0; break;
      case cuda::kAttrBufferId: *static_cast<unsigned long long*>(data[i]) = a ? a->buffer_id : 0; break;
      case cuda::kAttrIsManaged: *static_cast<bool*>(data[i]) = a && a->managed; break;
      case cuda::kAttrDeviceOrdinal: *static_cast<int*>(data[i]) = a ? a->device : -2; break;
      case cuda::kAttrContext: *static_cast<void**>(data[i]) = a ? reinterpret_cast<void*>(0xc0) : nullptr; break;
      case cuda::kAttrRangeStartAddr: *static_cast<unsigned long long*>(data[i]) = base; break;
      case cuda::kAttrRangeSize: *static_cast<size_t*>(data[i]) = a ? a->size : 0; break;
      default: return 1;  // CUDA_ERROR_INVALID_VALUE
    }
  }
  return 0;
}

const cuda::DriverApi kFake{fake_get_attributes};

struct FakeDriver {
  FakeDriver() {
    g_allocs.clear();
    g_calls = 0;
    g_fail = 0;
    set_cuda_driver_for_testing(&kFake);
  }
  ~FakeDriver() { set_cuda_driver_for_testing(nullptr); }
};

// Fake device addresses: never dereferenced.
constexpr uintptr_t kDev = 0x7f0000000000;

}  // namespace

TEST_CASE("memtype: host memory of every kind, CUDA not loaded") {
  REQUIRE(dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY) == nullptr);
  CHECK_FALSE(reprobe_cuda_driver());
  void* heap = malloc(100);
  void* big = malloc(8 << 20);
  void* anon = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = memfd_create("torus-memtype", 0);
  REQUIRE(fd >= 0);
  REQUIRE(ftruncate(fd, 1 << 16) == 0);
  void* shared = mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  char stack[64] = {};
  for (const void* p : {heap, big, anon, shared, static_cast<void*>(stack)}) {
    CHECK(detect_mem_type(p) == MemType::Host);
    const MemInfo info = query_mem_info(p);
    CHECK(info.type == MemType::Host);
    CHECK(info.buffer_id == 0);
  }
  // Many calls: the periodic re-probe runs and still finds no driver.
  for (int i = 0; i < 3 * detail::kProbeInterval; ++i) CHECK(detect_mem_type(heap) == MemType::Host);
  CHECK_FALSE(cuda_may_be_loaded());
  CHECK(memtype_status_text().find("host only") != std::string::npos);
  munmap(shared, 1 << 16);
  close(fd);
  munmap(anon, 1 << 20);
  free(big);
  free(heap);
}

TEST_CASE("memtype: device, managed and host-registered memory through the driver table") {
  FakeDriver fake;
  g_allocs[kDev] = {1 << 20, cuda::kMemoryTypeDevice, false, 11, 0};
  g_allocs[kDev + (4 << 20)] = {1 << 20, cuda::kMemoryTypeDevice, true, 12, 1};
  char registered[256];
  g_allocs[reinterpret_cast<uintptr_t>(registered)] = {sizeof(registered), cuda::kMemoryTypeHost, false, 13, 0};
  char plain[16];

  const MemInfo dev = query_mem_info(reinterpret_cast<void*>(kDev + 100));
  CHECK(dev.type == MemType::CudaDevice);
  CHECK(dev.buffer_id == 11);
  CHECK(dev.device == 0);
  CHECK(dev.base == kDev);
  CHECK(dev.size == size_t(1) << 20);
  CHECK(dev.context != nullptr);
  const MemInfo managed = query_mem_info(reinterpret_cast<void*>(kDev + (4 << 20) + 5));
  CHECK(managed.type == MemType::CudaManaged);
  CHECK(managed.device == 1);
  CHECK(detect_mem_type(registered + 10) == MemType::CudaHostRegistered);
  CHECK(detect_mem_type(plain) == MemType::Host);
  CHECK(std::string(mem_type_name(MemType::CudaManaged)) == "cuda-managed");

  // A second query of a known range costs one buffer-id check, not a full query.
  const MemtypeCounters before = memtype_counters();
  CHECK(detect_mem_type(reinterpret_cast<void*>(kDev + 4096)) == MemType::CudaDevice);
  const MemtypeCounters after = memtype_counters();
  CHECK(after.cache_hits == before.cache_hits + 1);
  CHECK(after.driver_queries == before.driver_queries);
}

TEST_CASE("memtype: freed and reallocated at the same address is never mistaken") {
  FakeDriver fake;
  g_allocs[kDev] = {1 << 20, cuda::kMemoryTypeDevice, false, 21, 0};
  CHECK(detect_mem_type(reinterpret_cast<void*>(kDev)) == MemType::CudaDevice);
  // cudaFree + cudaMallocManaged at the same address: a new buffer id.
  g_allocs[kDev] = {2 << 20, cuda::kMemoryTypeDevice, true, 22, 0};
  const MemInfo m = query_mem_info(reinterpret_cast<void*>(kDev + (1 << 20) + 1));
  CHECK(m.type == MemType::CudaManaged);  // beyond the old range: a fresh query
  const MemInfo again = query_mem_info(reinterpret_cast<void*>(kDev));
  CHECK(again.type == MemType::CudaManaged);
  CHECK(again.buffer_id == 22);
  // cudaFree, and the address range is host memory again (mapped by someone else).
  g_allocs.erase(kDev);
  CHECK(detect_mem_type(reinterpret_cast<void*>(kDev + 8)) == MemType::Host);
  CHECK(memtype_counters().cache_stale >= 1);
  // And reallocated as device memory with yet another id.
  g_allocs[kDev] = {1 << 20, cuda::kMemoryTypeDevice, false, 23, 3};
  const MemInfo d = query_mem_info(reinterpret_cast<void*>(kDev + 8));
  CHECK(d.type == MemType::CudaDevice);
  CHECK(d.buffer_id == 23);
  CHECK(d.device == 3);
}

TEST_CASE("memtype: driver errors mean host memory; a hint skips detection") {
  FakeDriver fake;
  g_allocs[kDev] = {1 << 20, cuda::kMemoryTypeDevice, false, 31, 0};
  g_fail = 3;  // CUDA_ERROR_NOT_INITIALIZED: no device memory can exist yet
  CHECK(detect_mem_type(reinterpret_cast<void*>(kDev)) == MemType::Host);
  g_fail = 0;
  const int calls = g_calls;
  CHECK(detect_mem_type(reinterpret_cast<void*>(kDev), MemType::CudaManaged) == MemType::CudaManaged);
  CHECK(query_mem_info(reinterpret_cast<void*>(kDev), MemType::Host).type == MemType::Host);
  CHECK(g_calls == calls);
}
