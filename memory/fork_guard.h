// The process generation: bumped in the child of every fork(), so caches and the unmap
// monitor can tell that what they hold belongs to the parent and must not be used.
#pragma once

#include <atomic>
#include <cstdint>

namespace torus::mem {

namespace detail {
extern std::atomic<uint64_t> g_fork_generation;
}

// Installs the pthread_atfork child handler (idempotent, thread-safe). Whoever records a
// generation calls this first, so a fork after that is always seen.
void install_fork_handler() noexcept;

// 0 in the process that first installed the handler; +1 in each generation of children.
inline uint64_t fork_generation() noexcept {
  return detail::g_fork_generation.load(std::memory_order_relaxed);
}

}  // namespace torus::mem
