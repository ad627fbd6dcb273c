// torus_perf's tests: tag_lat, tag_bw and am_lat, each as a client side that measures and a
// server side that answers, and put_bw and get_bw, where the server only registers memory and
// progresses; all over one torus endpoint, with the bootstrap socket for start/end handshakes
// and peer-death detection.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "contrib/tools/perf_options.h"
#include "contrib/tools/perf_socket.h"
#include "core/api/torus.hpp"

namespace torus::perf {

// The first corrupted byte --check found on this side, if any.
struct CheckState {
  bool bad = false;
  std::string first;  // "iteration 12, offset 4095: expected 0x3a, got 0x00"
  void record(uint64_t iter, size_t offset, std::byte expected, std::byte got);
  void record_length(uint64_t iter, size_t expected, size_t got);
};

// What am_lat's handler knows about the size under test; it counts and checks arrivals.
struct AmState {
  uint64_t received = 0;  // messages handled since the size began
  size_t size = 0;
  unsigned dir = 0;  // direction of the messages this side receives (0: from the client)
  bool check = false;
  CheckState* cs = nullptr;
};

// One process's side of a run: its worker, the endpoint to the peer, the bootstrap socket.
// Installs am_lat's handlers on the worker for its lifetime; not movable.
class Session final {
 public:
  Session(Worker& worker, Endpoint& ep, BootstrapSocket& sock, std::chrono::seconds timeout);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  Worker& worker() noexcept { return worker_; }
  Endpoint& ep() noexcept { return ep_; }
  BootstrapSocket& sock() noexcept { return sock_; }
  AmState& am() noexcept { return am_; }
  std::chrono::milliseconds socket_timeout() const noexcept { return timeout_; }

  // Completes a call's status: Ok (nothing to wait for) or InProgress (waits for req with
  // Worker::wait_request, bounded by the timeout, watching the socket for the peer's death,
  // then releases it). Any error throws Fatal naming `what`, the iteration and status_string.
  // For a receive returns what it got; length is SIZE_MAX when the call finished at once.
  RecvInfo complete(Status s, Request* req, const char* what, uint64_t iter);
  // Progresses until am().received reaches `count`; same bounds and peer-death checks.
  void progress_until_received(uint64_t count, const char* what, uint64_t iter);
  // am_lat: whether an active message of `size` payload bytes fits this endpoint (am_send
  // does not answer Unsupported). The probe goes to a handler that ignores it.
  bool am_size_supported(size_t size);
  // put_bw/get_bw server: progresses the worker (spinning, then sleeping on its event fd and
  // the socket together) until the client sends a bootstrap message; returns its text. The
  // peer closing the socket throws Fatal; there is no timeout (a run may be long).
  std::string serve_until_message(const char* what);

 private:
  void check_peer(const char* what, uint64_t iter);
  [[noreturn]] void timed_out(const char* what, uint64_t iter);

  Worker& worker_;
  Endpoint& ep_;
  BootstrapSocket& sock_;
  std::chrono::milliseconds timeout_;
  AmState am_;
  std::vector<std::vector<std::byte>> probe_bufs_;  // live until every probe completed
};

// What the client measured for one size. For latency tests `lat` is one-way (RTT / 2) in
// microseconds; for bandwidth tests it is the time per message within a window.
struct SizeResult {
  size_t size = 0;
  uint64_t iters = 0;
  bool skipped = false;
  std::string skip_reason;
  Summary lat;
  double bw_MBps = 0;                // MB = 2^20
  double bw_window_median_MBps = 0;  // bandwidth tests
  double msg_rate = 0;               // messages per second (bandwidth tests)
};

// A page-aligned buffer (at least one byte), its pages touched up front.
class PageBuffer final {
 public:
  explicit PageBuffer(size_t size);
  std::byte* data() const noexcept { return p_.get(); }
  std::span<std::byte> first(size_t n) const noexcept { return {p_.get(), n}; }

 private:
  struct Free {
    void operator()(std::byte* p) const noexcept;
  };
  std::unique_ptr<std::byte, Free> p_;
};

// put_bw/get_bw, server side: a buffer of the largest size registered for kMemRead|kMemWrite,
// deregistered (before the worker goes) on destruction.
class RmaTarget final {
 public:
  RmaTarget(Worker& worker, size_t length);
  ~RmaTarget();
  RmaTarget(const RmaTarget&) = delete;
  RmaTarget& operator=(const RmaTarget&) = delete;

  std::span<std::byte> bytes() const noexcept { return buf_.first(length_); }
  // Once per run, before the first size: "RMA <address> <length>", then the packed key.
  void send_to(BootstrapSocket& sock) const;

 private:
  Worker& worker_;
  size_t length_;
  PageBuffer buf_;
  MemHandle* handle_ = nullptr;
};

// What the client knows of the server's RmaTarget.
struct RemoteBuffer {
  uint64_t address = 0;
  size_t length = 0;
  std::vector<std::byte> rkey;
  static RemoteBuffer receive(BootstrapSocket& sock, std::chrono::milliseconds timeout);
};

// get_bw --check: the server's buffer holds this pattern (from offset 0) for the whole run.
uint64_t get_bw_seed() noexcept;

// One size of one test. The caller has exchanged BEGIN and exchanges END afterwards. Client
// side: waits for the server's READY, runs the warm-up and timed iterations, measures.
// Server side: pre-posts what it can, sends READY, answers every iteration.
SizeResult client_tag_lat(Session& s, const SizePlan& p, bool check, CheckState& cs);
SizeResult client_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         CheckState& cs);
SizeResult client_am_lat(Session& s, const SizePlan& p, bool check, CheckState& cs);
void server_tag_lat(Session& s, const SizePlan& p, bool check, CheckState& cs);
void server_tag_bw(Session& s, const SizePlan& p, unsigned window, bool check, CheckState& cs);
void server_am_lat(Session& s, const SizePlan& p, bool check, CheckState& cs);
// put_bw/get_bw: the client issues windows of `window` puts (then a flush) or gets of p.size
// bytes to the start of the server's buffer and waits for them; the server sends READY and
// progresses until the client's "DONE", or, put_bw --check, "CHECK <message>" after a last
// put of that message's pattern, which it then verifies in its buffer.
SizeResult client_put_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         const RemoteBuffer& rb, CheckState& cs);
SizeResult client_get_bw(Session& s, const SizePlan& p, unsigned window, bool check,
                         const RemoteBuffer& rb, CheckState& cs);
void server_rma_bw(Session& s, const SizePlan& p, const RmaTarget& target, CheckState& cs);

}  // namespace torus::perf
