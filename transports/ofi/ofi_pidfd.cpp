// pidfd helpers for watching local peers (ofi_pidfd.h).
#include "transports/ofi/ofi_pidfd.h"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace torus::ofi {

int open_pidfd(pid_t pid) noexcept {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

bool process_exited(int pidfd) noexcept {
  pollfd pfd{pidfd, POLLIN, 0};
  return ::poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN) != 0;
}

}  // namespace torus::ofi
