#include "transports/ofi/ofi_shm_names.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "core/base/log.h"
#include "core/base/pid_namespace.h"

namespace torus::ofi {
namespace {

constexpr const char* kPrefix = "torus-ofi-";

}  // namespace

std::string shm_endpoint_name(uint64_t worker_uid) {
  char name[96];
  std::snprintf(name, sizeof name, "%s%" PRIu64 "-%d-%016" PRIx64, kPrefix, pid_namespace_id(),
                static_cast<int>(::getpid()), worker_uid);
  return name;
}

unsigned sweep_dead_shm_regions(const char* dir) {
  const uint64_t ns = pid_namespace_id();
  if (ns == 0) return 0;
  DIR* d = ::opendir(dir);
  if (d == nullptr) return 0;
  char mine[48];
  std::snprintf(mine, sizeof mine, "%s%" PRIu64 "-", kPrefix, ns);
  const size_t mine_len = std::strlen(mine);
  unsigned removed = 0;
  while (const dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, mine, mine_len) != 0) continue;
    char* end = nullptr;
    errno = 0;
    const long pid = std::strtol(e->d_name + mine_len, &end, 10);
    if (errno != 0 || end == e->d_name + mine_len || *end != '-' || pid <= 0) continue;
    // Only a pid that is gone: a live one (or one we may not signal) keeps its region.
    if (!pid_is_gone(ns, static_cast<pid_t>(pid))) continue;
    std::string path = std::string(dir) + "/" + e->d_name;
    if (::unlink(path.c_str()) == 0) {
      ++removed;
      TORUS_DEBUG("ofi: removed %s, left by pid %ld", path.c_str(), pid);
    }
  }
  ::closedir(d);
  return removed;
}

}  // namespace torus::ofi
