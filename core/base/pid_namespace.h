// Telling a dead process from a live one by pid, safely across pid namespaces. Files that
// outlive a killed process (shm regions in /dev/shm) record their owner's pid; a container
// sharing /dev/shm has its own pid numbers, so a pid is only judged in its own namespace.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace torus {

// The inode of /proc/self/ns/pid, or 0 where it cannot be read (then nothing is judged dead).
uint64_t pid_namespace_id() noexcept;

// True when `pid` of namespace `ns` certainly no longer exists: ns is ours (and known) and
// kill(pid, 0) says ESRCH. A live pid, one we may not signal, or another namespace: false.
bool pid_is_gone(uint64_t ns, pid_t pid) noexcept;

}  // namespace torus
