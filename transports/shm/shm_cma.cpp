// process_vm_readv / process_vm_writev with the partial-transfer loop.
#include "transports/shm/shm_cma.h"

#include <sys/uio.h>

#include <cerrno>

namespace torus::shm {
namespace {

template <typename Call>
int cma_loop(std::byte* local, size_t len, uint64_t remote, Call call) noexcept {
  size_t done = 0;
  while (done < len) {
    iovec l{local + done, len - done};
    iovec r{reinterpret_cast<void*>(remote + done), len - done};
    const ssize_t n = call(&l, &r);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    // Zero progress on a non-empty request would loop forever: the kernel stops short only
    // at an unmapped page, which the next call reports as EFAULT anyway.
    if (n == 0) return EFAULT;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

int cma_read(pid_t pid, std::span<std::byte> local, uint64_t remote_addr) noexcept {
  return cma_loop(local.data(), local.size(), remote_addr, [pid](iovec* l, iovec* r) {
    return ::process_vm_readv(pid, l, 1, r, 1, 0);
  });
}

int cma_write(pid_t pid, std::span<const std::byte> local, uint64_t remote_addr) noexcept {
  return cma_loop(const_cast<std::byte*>(local.data()), local.size(), remote_addr,
                  [pid](iovec* l, iovec* r) { return ::process_vm_writev(pid, l, 1, r, 1, 0); });
}

}  // namespace torus::shm
