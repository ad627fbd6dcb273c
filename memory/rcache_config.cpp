// TORUS_RCACHE* parsing and the machine-sized `auto` limits.
#include "memory/rcache_config.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "core/base/config.h"

namespace torus::mem {
namespace {

// CAP_IPC_LOCK lifts RLIMIT_MEMLOCK for registrations; read from /proc to avoid libcap.
bool has_cap_ipc_lock() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
    return (caps >> 14) & 1;  // CAP_IPC_LOCK
  }
  return false;
}

}  // namespace

uint64_t auto_max_unused_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  uint64_t bytes = (pages > 0 && page > 0) ? uint64_t(pages) * uint64_t(page) / 4
                                           : uint64_t(1) << 30;
  rlimit lim{};
  if (getrlimit(RLIMIT_MEMLOCK, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && !has_cap_ipc_lock())
    bytes = std::min<uint64_t>(bytes, lim.rlim_cur / 2);
  return bytes;
}

uint64_t auto_max_unused_regions() {
  uint64_t map_count = 65530;  // the kernel's default
  std::ifstream f("/proc/sys/vm/max_map_count");
  f >> map_count;
  return std::clamp<uint64_t>(map_count / 8, 64, 16384);
}

RcacheConfig RcacheConfig::from(const config::Config& cfg) {
  RcacheConfig c;
  const std::string& mode = cfg.get_string("TORUS_RCACHE");
  c.mode = mode == "y" ? RcacheMode::On : mode == "n" ? RcacheMode::Off : RcacheMode::Auto;
  const uint64_t size = cfg.get_size("TORUS_RCACHE_MAX_SIZE");
  c.max_unused_bytes = size == config::kSizeAuto  ? kAuto
                       : size == config::kSizeInf ? kUnlimited
                                                  : size;
  const int64_t regions = cfg.get_int("TORUS_RCACHE_MAX_REGIONS");
  c.max_unused_regions = regions == config::kIntAuto ? kAuto
                         : regions < 0               ? 0
                                                     : uint64_t(regions);
  c.print_stats = cfg.get_bool("TORUS_RCACHE_STATS");
  return c;
}

RcacheConfig RcacheConfig::resolved() const {
  RcacheConfig c = *this;
  if (c.max_unused_bytes == kAuto) c.max_unused_bytes = auto_max_unused_bytes();
  if (c.max_unused_regions == kAuto) c.max_unused_regions = auto_max_unused_regions();
  return c;
}

const char* mode_name(RcacheMode m) noexcept {
  switch (m) {
    case RcacheMode::Auto: return "auto";
    case RcacheMode::On: return "y";
    case RcacheMode::Off: return "n";
  }
  return "?";
}

}  // namespace torus::mem
