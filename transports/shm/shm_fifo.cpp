// Formatting a new FIFO; the data path is inline in shm_fifo.h.
#include "transports/shm/shm_fifo.h"

namespace torus::shm {

void fifo_init(const RingView& ring) noexcept {
  // The segment is fresh zero pages from ftruncate; the atomics only need their values.
  // seq = i is not i + 1: no cell reads as published before its first lap.
  for (uint32_t i = 0; i < ring.size; ++i) ring.cells[i].seq.store(i, std::memory_order_relaxed);
  ring.tail->store(0, std::memory_order_relaxed);
  ring.released->store(0, std::memory_order_relaxed);
  ring.sleeping->store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
}

}  // namespace torus::shm
