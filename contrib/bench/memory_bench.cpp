// Micro-benchmark of the memory layer (not a test): memory-type detection of a host pointer
// while CUDA is not loaded, a registration-cache hit (get + release), and a plain std::map
// lookup as the floor. Prints the median of several repetitions, in ns per operation.
// Build: the memory_bench target (test/memory/CMakeLists.txt); run bin/memory_bench.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "memory/memtype.h"
#include "memory/rcache.h"

using namespace torus;
using namespace torus::mem;

namespace {

constexpr int kReps = 9;
constexpr long kIters = 2'000'000;
constexpr size_t kRegions = 64;  // a working set of cached regions, like a rendezvous pool

template <typename T>
void keep(const T& v) { asm volatile("" : : "r,m"(v) : "memory"); }

struct Timing {
  double median;
  double min;
};

template <typename Fn>
Timing time_ns(Fn&& body) {
  std::vector<double> runs;
  for (int r = 0; r < kReps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < kIters; ++i) body(i);
    const auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kIters);
  }
  std::sort(runs.begin(), runs.end());
  return {runs[runs.size() / 2], runs.front()};
}

class NullRegistrar final : public Registrar {
 public:
  Result<void*> reg(void* addr, size_t, uint32_t) override { return addr; }
  void dereg(void*) noexcept override {}
};

}  // namespace

int main() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  char* arena = static_cast<char*>(mmap(nullptr, 2 * kRegions * page, PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (arena == MAP_FAILED) return 1;
  std::vector<char*> ptrs;
  for (size_t i = 0; i < kRegions; ++i) ptrs.push_back(arena + 2 * i * page + 64);
  const size_t mask = kRegions - 1;

  std::printf("memory_bench: median of %d runs x %ld operations, %zu distinct buffers\n", kReps,
              kIters, kRegions);
  std::printf("CUDA driver loaded: %s\n", reprobe_cuda_driver() ? "yes" : "no");

  const Timing detect = time_ns([&](long i) {
    keep(detect_mem_type(ptrs[static_cast<size_t>(i) & mask]));
  });

  std::map<uintptr_t, uintptr_t> floor_map;
  for (char* p : ptrs) floor_map[reinterpret_cast<uintptr_t>(p) & ~(page - 1)] = page;
  const Timing map_lookup = time_ns([&](long i) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(ptrs[static_cast<size_t>(i) & mask]);
    auto it = floor_map.upper_bound(a);
    --it;
    keep(it->second);
  });

  NullRegistrar reg;
  // Both kinds of cache: the thread-safe one, and the one an Iface owns (its calls are
  // serialised by the Iface's single-threaded contract, so it takes no lock).
  struct Hit {
    Timing t;
    RcacheStats stats;
    bool caching;
  };
  const auto time_hits = [&](bool serialised) -> Hit {
    RcacheConfig cfg;
    cfg.mode = RcacheMode::Auto;
    cfg.serialised_by_caller = serialised;
    auto cache = RegCache::create(reg, cfg, "bench");
    if (!cache.ok()) {
      std::fprintf(stderr, "rcache: %s\n", cache.error().message.c_str());
      std::exit(1);
    }
    for (char* p : ptrs)
      if (!cache.value()->get(p, 256, 1).ok()) std::exit(1);
    const Timing t = time_ns([&](long i) {
      auto r = cache.value()->get(ptrs[static_cast<size_t>(i) & mask], 256, 1);
      keep(r->handle());
    });
    return {t, cache.value()->stats(), cache.value()->caching()};
  };
  const Hit hit_owned = time_hits(true);
  const Hit hit_shared = time_hits(false);

  // What one locked instruction costs here: a thread-safe hit needs two.
  std::atomic<uint64_t> counter{0};
  const Timing rmw = time_ns([&](long) { counter.fetch_add(1, std::memory_order_acq_rel); });

  std::printf("%-50s %8s %8s\n", "ns per operation", "median", "min");
  std::printf("%-50s %8.2f %8.2f   target < 5 ns\n", "detect_mem_type(host), CUDA not loaded",
              detect.median, detect.min);
  std::printf("%-50s %8.2f %8.2f   target < 50 ns (%s)\n",
              "rcache hit: get + release, iface cache (no lock)", hit_owned.t.median,
              hit_owned.t.min, hit_owned.caching ? "caching" : "NOT caching: no unmap monitor");
  std::printf("%-50s %8.2f %8.2f   (%s)\n", "rcache hit: get + release, thread-safe cache",
              hit_shared.t.median, hit_shared.t.min,
              hit_shared.caching ? "caching" : "NOT caching: no unmap monitor");
  std::printf("%-50s %8.2f %8.2f   floor\n", "std::map<uintptr_t,...> upper_bound, 64 keys",
              map_lookup.median, map_lookup.min);
  std::printf("%-50s %8.2f %8.2f   floor of a thread-safe hit: x2\n",
              "one locked instruction (atomic fetch_add)", rmw.median, rmw.min);
  std::printf("rcache: %llu + %llu hits, %llu + %llu misses\n",
              static_cast<unsigned long long>(hit_owned.stats.hits),
              static_cast<unsigned long long>(hit_shared.stats.hits),
              static_cast<unsigned long long>(hit_owned.stats.misses),
              static_cast<unsigned long long>(hit_shared.stats.misses));
  munmap(arena, 2 * kRegions * page);
  return 0;
}
