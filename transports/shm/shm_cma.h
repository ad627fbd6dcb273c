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

// Copies all bytes or fails: 0 on success, else an errno value. Loops over partial transfers.
int cma_read(pid_t pid, std::span<std::byte> local, uint64_t remote_addr) noexcept;
int cma_write(pid_t pid, std::span<const std::byte> local, uint64_t remote_addr) noexcept;

// The errors after which auto mode falls back instead of failing the operation.
constexpr bool cma_unavailable(int err) { return err == EPERM || err == ENOSYS; }

}  // namespace torus::shm
