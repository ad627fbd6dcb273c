// Watching a peer process on this host through a pidfd: for providers that reach only local
// processes (libfabric's shm), where a send to a dead peer still succeeds and a keepalive
// cannot fail (ofi_cost.h: peers_on_this_host).
#pragma once

#include <sys/types.h>

namespace torus::ofi {

// A pidfd for `pid`, or -1 with errno (ESRCH: no such process).
int open_pidfd(pid_t pid) noexcept;

// Whether the process behind `pidfd` has exited (the pidfd polls readable).
bool process_exited(int pidfd) noexcept;

}  // namespace torus::ofi
