// process_vm_readv / process_vm_writev with the partial-transfer loop, and the staged copy
// for transfers at a slow distance (shm_cma.h).
#include "transports/shm/shm_cma.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "core/base/copy.h"

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

// One per thread (a worker in thread-multi mode may copy from several), allocated on the
// first staged transfer: most processes never need it.
struct StageBuffer {
  std::byte* base = nullptr;
  ~StageBuffer() { std::free(base); }
  std::byte* get() noexcept {
    if (base == nullptr)
      base = static_cast<std::byte*>(std::aligned_alloc(4096, kCmaStageChunk + 4096));
    return base;
  }
};

std::byte* stage_buffer() noexcept {
  thread_local StageBuffer buffer;
  return buffer.get();
}

auto reader(pid_t pid) {
  return [pid](iovec* l, iovec* r) { return ::process_vm_readv(pid, l, 1, r, 1, 0); };
}
auto writer(pid_t pid) {
  return [pid](iovec* l, iovec* r) { return ::process_vm_writev(pid, l, 1, r, 1, 0); };
}

bool staged(bool stage, bool is_read, const std::byte* local, size_t len, uint64_t remote) {
  return stage && len >= kCopyAliasMin && cma_aliased(is_read, local, remote);
}

}  // namespace

int cma_read(pid_t pid, std::span<std::byte> local, uint64_t remote_addr, bool stage) noexcept {
  std::byte* s = nullptr;
  if (!staged(stage, true, local.data(), local.size(), remote_addr) ||
      (s = stage_buffer()) == nullptr)
    return cma_loop(local.data(), local.size(), remote_addr, reader(pid));
  for (size_t done = 0; done < local.size();) {
    const size_t n = std::min(kCmaStageChunk, local.size() - done);
    std::byte* at = s + ((remote_addr + done) & 4095);
    if (const int err = cma_loop(at, n, remote_addr + done, reader(pid)); err != 0) return err;
    copy_bytes(local.data() + done, at, n);
    done += n;
  }
  return 0;
}

int cma_write(pid_t pid, std::span<const std::byte> local, uint64_t remote_addr,
              bool stage) noexcept {
  std::byte* s = nullptr;
  if (!staged(stage, false, local.data(), local.size(), remote_addr) ||
      (s = stage_buffer()) == nullptr)
    return cma_loop(const_cast<std::byte*>(local.data()), local.size(), remote_addr,
                    writer(pid));
  for (size_t done = 0; done < local.size();) {
    const size_t n = std::min(kCmaStageChunk, local.size() - done);
    std::byte* at = s + ((remote_addr + done) & 4095);
    copy_bytes(at, local.data() + done, n);
    if (const int err = cma_loop(at, n, remote_addr + done, writer(pid)); err != 0) return err;
    done += n;
  }
  return 0;
}

}  // namespace torus::shm
