// Registration-cache settings: the typed view of TORUS_RCACHE*, with `auto` sized from this
// machine's memory.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"

namespace torus::config { class Config; }

namespace torus::mem {

enum class RcacheMode : uint8_t {
  Auto,  // cache when an unmap monitor works; otherwise register per operation
  On,    // cache; creating a cache fails when no unmap monitor works
  Off,   // register per operation
};

struct RcacheConfig {
  RcacheMode mode = RcacheMode::Auto;
  // Limits on registrations kept while no operation uses them (in-use ones are never
  // evicted). Resolved by resolve(); 0 bytes or 0 regions keeps nothing unused.
  uint64_t max_unused_bytes = kAuto;
  uint64_t max_unused_regions = kAuto;
  bool print_stats = false;  // at destruction, whatever TORUS_LOG_LEVEL says
  // The owner never calls the cache (nor releases its RegRefs) from two threads at once, as
  // an Iface's single-threaded contract guarantees: the cache then takes no lock. A hit
  // takes the lock twice, and a locked instruction costs ~7 ns on an idle VM here and up to
  // ~22 ns on a loaded one (hits of ~17 vs ~29 ns idle). Not set from the environment.
  bool serialised_by_caller = false;

  static constexpr uint64_t kAuto = UINT64_MAX - 1;
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  // TORUS_RCACHE, TORUS_RCACHE_MAX_SIZE, TORUS_RCACHE_MAX_REGIONS, TORUS_RCACHE_STATS.
  static RcacheConfig from(const config::Config& cfg);
  // The same settings with `auto` replaced by this machine's numbers.
  RcacheConfig resolved() const;
};

// A quarter of physical memory; when this process is bound by a finite RLIMIT_MEMLOCK
// (no CAP_IPC_LOCK), at most half of that limit, so unused pinned regions leave room for the
// ones operations need.
uint64_t auto_max_unused_bytes();
// An eighth of vm.max_map_count, within [64, 16384]: every cached region may split the
// virtual memory areas around it when it is watched, and running out of map count makes
// mmap fail everywhere in the process.
uint64_t auto_max_unused_regions();

const char* mode_name(RcacheMode m) noexcept;

}  // namespace torus::mem
