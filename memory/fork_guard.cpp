// pthread_atfork child handler: only an atomic increment, which is async-signal-safe, so it
// is valid even when the parent forked while other threads held locks.
#include "memory/fork_guard.h"

#include <pthread.h>

#include <mutex>

namespace torus::mem {
namespace detail {
std::atomic<uint64_t> g_fork_generation{0};
}

namespace {
void on_fork_child() noexcept {
  detail::g_fork_generation.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

void install_fork_handler() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, on_fork_child); });
}

}  // namespace torus::mem
