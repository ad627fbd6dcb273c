// Counters behind the MPI_T performance variables (pvar.cpp). They order nothing: a tool
// only needs each count to be exact once the counted calls returned. Below
// MPI_THREAD_MULTIPLE the program serializes its MPI calls, so an add is a plain load and
// store: a locked add on the send path would wait for the store buffer to drain, that is for
// the previous message's FIFO line to reach the peer, which a plain store does not.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace torus::mpi {

struct ToolCounters {
  std::atomic<uint64_t> sent_messages{0};
  std::atomic<uint64_t> sent_bytes{0};
  std::atomic<uint64_t> recvs_posted{0};
  bool multi_thread = false;  // MPI_THREAD_MULTIPLE: adds must be atomic (set by runtime_start)
};

inline ToolCounters tool_counters;

inline void tool_count(std::atomic<uint64_t>& c, uint64_t n) noexcept {
  if (tool_counters.multi_thread)
    c.fetch_add(n, std::memory_order_relaxed);
  else
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

inline void count_sent(size_t bytes) noexcept {
  tool_count(tool_counters.sent_messages, 1);
  tool_count(tool_counters.sent_bytes, bytes);
}

inline void count_recv_posted() noexcept { tool_count(tool_counters.recvs_posted, 1); }

}  // namespace torus::mpi
