// Two real processes for integration tests: fork, exchange worker addresses over a
// socketpair, connect endpoints both ways, run one function on each side.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/api/torus.hpp"

namespace torus::test {

struct Peer {
  std::unique_ptr<Context> ctx;
  std::unique_ptr<Worker> worker;
  Endpoint* ep = nullptr;  // to the other process
  int sock = -1;           // out-of-band control channel
  bool is_parent = false;

  // Out-of-band barrier and small values (never through torus).
  void barrier();
  void send_u64(uint64_t v);
  uint64_t recv_u64();
  // Closing barrier that keeps progressing, as MPI_Finalize does: replies this side still
  // owes the peer (acks, rendezvous completions) go out before the worker is destroyed.
  void drain();
  // Waits for a request with a deadline; returns its status (Timeout if the deadline passes).
  Status wait(Request* req, std::chrono::milliseconds timeout = std::chrono::seconds(60));
};

// Runs `parent` here and `child` in a forked process. Returns "" on success, else a
// description of what failed (child exit code, timeout). Each function returns 0 on success.
std::string run_pair(const std::function<int(Peer&)>& parent,
                     const std::function<int(Peer&)>& child,
                     std::chrono::seconds timeout = std::chrono::seconds(120));

// Deterministic byte pattern for data checks.
void fill_pattern(std::byte* p, size_t n, uint64_t seed);
// Offset of the first mismatching byte, or SIZE_MAX when all match.
size_t check_pattern(const std::byte* p, size_t n, uint64_t seed);

}  // namespace torus::test
