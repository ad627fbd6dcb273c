// What identifies "this host, as this process sees it": shm needs the same kernel and IPC,
// network and PID namespaces; tcp needs the same network namespace to use loopback.
#pragma once

#include <cstdint>

#include "core/base/status.h"

namespace torus::tl {

struct HostIdentity {
  uint64_t boot_id = 0;  // hash of /proc/sys/kernel/random/boot_id
  uint64_t ipc_ns = 0;
  uint64_t net_ns = 0;
  uint64_t pid_ns = 0;
};
Result<HostIdentity> host_identity();

}  // namespace torus::tl
