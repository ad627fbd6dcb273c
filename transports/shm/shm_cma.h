// Cross-memory attach: one kernel copy between two address spaces (process_vm_readv/writev).
// When the kernel refuses (EPERM under Yama or for undumpable peers, ENOSYS) the endpoint
// moves to the bounce protocol in shm_bounce.h, as TORUS_SHM_CMA allows.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <span>

namespace torus::shm {

enum class CmaMode : uint8_t {
  Auto,  // try CMA; on EPERM/ENOSYS fall back to bounce for that endpoint
  Yes,   // CMA or fail
  No,    // always bounce
};

// The kernel copies with `rep movsb` on FSRM CPUs, and on AMD Zen 3/4 that runs 4-5 times
// slower when the destination sits 1-15 bytes past the source modulo a page (1 MiB: 376-462
// against 92 us at distance 8; 16-31 cost 0-30 % more, no more than staging would). With
// `stage`, such a transfer goes through a staging buffer at the remote address's page
// offset, in chunks of kCmaStageChunk: the kernel copies at distance 0 and copy_bytes does
// the other copy (1 MiB: 110 us).
inline constexpr size_t kCmaStageChunk = 256 << 10;
inline constexpr uintptr_t kCmaAliasDistance = 16;

// Whether the kernel's copy for this transfer runs at a slow distance.
inline bool cma_aliased(bool is_read, const void* local, uint64_t remote_addr) noexcept {
  const uintptr_t l = reinterpret_cast<uintptr_t>(local);
  const uintptr_t d = is_read ? l - remote_addr : remote_addr - l;  // kernel dst - src
  return (d & 4095) - 1 < kCmaAliasDistance - 1;
}

// Copies all bytes or fails: 0 on success, else an errno value. Loops over partial transfers.
int cma_read(pid_t pid, std::span<std::byte> local, uint64_t remote_addr,
             bool stage) noexcept;
int cma_write(pid_t pid, std::span<const std::byte> local, uint64_t remote_addr,
              bool stage) noexcept;

// The errors after which auto mode falls back instead of failing the operation.
constexpr bool cma_unavailable(int err) { return err == EPERM || err == ENOSYS; }

}  // namespace torus::shm
