#include "core/base/pid_namespace.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>

namespace torus {

uint64_t pid_namespace_id() noexcept {
  // Not cached: a child forked after its parent's unshare(CLONE_NEWPID) is in another one.
  struct stat st{};
  return ::stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

bool pid_is_gone(uint64_t ns, pid_t pid) noexcept {
  if (pid <= 0 || ns == 0 || ns != pid_namespace_id()) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

}  // namespace torus
