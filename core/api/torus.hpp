// torus public C++ API: Context -> Worker -> Endpoint, tagged messages, active messages.
// This is the one API an embedding framework and torus's own MPI use.
//
// Threading: a Worker and everything created from it are used by one thread at a time
// (TORUS_THREAD_MODE=multi makes a worker's calls safe from many threads).
// Completion: non-blocking calls return Status::Ok when finished at once (no request is
// created), Status::InProgress with *req set when a request tracks the operation, or an
// error. A request is returned to its worker's pool with Request::release(); release may be
// called before completion (the operation still runs, the callback still fires).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace torus {

namespace config { class Config; }

using Tag = uint64_t;
inline constexpr Tag kTagMaskFull = ~Tag{0};

class Request;
class Endpoint;
class Worker;

// What a completed receive got: the sender's full tag and the message length. When the
// message was longer than the buffer, status is BufferTooSmall and length is the full size.
struct RecvInfo {
  Tag tag = 0;
  size_t length = 0;
};

using SendCallback = void (*)(Request* req, Status status, void* user);
using RecvCallback = void (*)(Request* req, Status status, const RecvInfo& info, void* user);

struct SendParams {
  SendCallback callback = nullptr;  // runs from progress when an InProgress send completes
  void* user = nullptr;
  bool sync = false;  // complete only after the receiver matched the message (MPI_Ssend)
};

struct RecvParams {
  RecvCallback callback = nullptr;
  void* user = nullptr;
};

// Active messages for embedders: a handler per id (0..kMaxUserAmId), called from progress
// with the header and payload, valid only during the call.
inline constexpr unsigned kMaxUserAmId = 63;
using AmCallback = void (*)(void* arg, std::span<const std::byte> header,
                            std::span<const std::byte> payload, Endpoint* reply_ep);

// Runs from progress when the connection to a peer fails for good; its pending requests
// have completed with the error before this runs.
using EndpointErrorCallback = void (*)(void* arg, Endpoint* ep, Status status);

// Memory registered for one-sided access by peers (get/put). Its packed remote key travels
// to a peer by any means (a tagged message, an AM); the peer passes it to Endpoint::get/put.
// Every access is checked against the key's range, rights and secret by the target side's
// transport; a stale (deregistered) or forged key is refused with AccessDenied.
enum : uint32_t { kMemRead = 1, kMemWrite = 2 };

class MemHandle {
 public:
  void* address() const noexcept;
  size_t length() const noexcept;
  std::vector<std::byte> pack_rkey() const;

 protected:
  MemHandle() = default;
  ~MemHandle() = default;
};

// An unexpected message that Worker::tag_probe_remove took off the unexpected queue: no
// tag_recv can match it any more, and Worker::tag_msg_recv receives it exactly once (UCX's
// ucp_tag_probe_nb with remove and ucp_tag_msg_recv_nb; MPI_Mprobe and MPI_Mrecv).
class Message {
 protected:
  Message() = default;
  ~Message() = default;
};

class Request {
 public:
  bool completed() const noexcept;
  Status status() const noexcept;  // InProgress until completed
  RecvInfo info() const noexcept;  // receives only
  void release() noexcept;

 protected:
  Request() = default;
  ~Request() = default;
};

class Endpoint {
 public:
  // Tagged send of [buf, buf+length). The buffer must stay untouched until completion.
  [[nodiscard]] Status tag_send(const void* buf, size_t length, Tag tag, Request** req,
                                const SendParams& params = {});
  // Active message: header (<= 64 bytes) and payload delivered to the peer's handler `id`.
  [[nodiscard]] Status am_send(unsigned id, std::span<const std::byte> header,
                               std::span<const std::byte> payload, Request** req,
                               const SendParams& params = {});
  // One-sided write of [buf, buf+length) to the peer's registered memory at remote_addr
  // (an address inside the region whose packed key is rkey). Completes when the data is in
  // the peer's memory.
  [[nodiscard]] Status put(const void* buf, size_t length, uint64_t remote_addr,
                           std::span<const std::byte> rkey, Request** req,
                           const SendParams& params = {});
  // One-sided read of the peer's registered memory into [buf, buf+length).
  [[nodiscard]] Status get(void* buf, size_t length, uint64_t remote_addr,
                           std::span<const std::byte> rkey, Request** req,
                           const SendParams& params = {});
  // Completes when every operation issued on this endpoint before it has completed.
  [[nodiscard]] Status flush(Request** req);
  // The remote worker's unique id.
  uint64_t peer_uid() const noexcept;
  // Human-readable lanes and protocol table (what TORUS_PROTO_INFO prints).
  std::string describe() const;
  // The smallest tagged message a send now would carry by rendezvous, SIZE_MAX if none.
  // It follows the transport's measured costs (shm: how far apart the two cores are), so a
  // layer above may pick its algorithm by it, as MPI's allreduce does.
  size_t rndv_threshold();

 protected:
  Endpoint() = default;
  ~Endpoint() = default;
};

struct WorkerParams {
  bool thread_multi = false;  // also forced by TORUS_THREAD_MODE=multi
};

class Worker {
 public:
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  uint64_t uid() const noexcept;
  // Packed address a peer passes to connect().
  std::vector<std::byte> address() const;
  // Connects (lazily on the wire) to the worker whose address is given. The endpoint is
  // owned by the worker; connecting twice to the same worker returns the same endpoint.
  Result<Endpoint*> connect(std::span<const std::byte> address);

  // Posts a receive for a message whose tag satisfies (msg_tag & mask) == (tag & mask).
  [[nodiscard]] Status tag_recv(void* buf, size_t length, Tag tag, Tag mask, Request** req,
                                const RecvParams& params = {});
  // Looks for an unexpected message matching (tag, mask) without receiving it.
  bool tag_probe(Tag tag, Tag mask, RecvInfo* info);
  // Like tag_probe, but the matched message leaves the unexpected queue, so no other receive
  // (of any thread) can take it; nullptr when nothing matches. The message must be received
  // with tag_msg_recv (it stays allocated until then, even while its fragments arrive).
  Message* tag_probe_remove(Tag tag, Tag mask, RecvInfo* info);
  // Receives a message taken by tag_probe_remove into [buf, buf+length); completes like a
  // tag_recv that matched it (InProgress with *req set, or an error).
  [[nodiscard]] Status tag_msg_recv(Message* msg, void* buf, size_t length, Request** req,
                                    const RecvParams& params = {});
  // Cancels an unmatched receive: it completes with Canceled. Returns NotFound when the
  // receive already matched (it will complete normally).
  Status cancel(Request* req);

  void set_am_handler(unsigned id, AmCallback cb, void* arg);
  // Registers [addr, addr+length) with every transport that can do get/put; access is
  // kMemRead | kMemWrite. Deregister before freeing the memory.
  Result<MemHandle*> mem_register(void* addr, size_t length, uint32_t access);
  void mem_deregister(MemHandle* handle);
  void set_error_handler(EndpointErrorCallback cb, void* arg);

  // Polls every interface once; returns the number of events handled.
  unsigned progress();
  // Sleeps until an interface has an event or the timeout passes (Ok or Timeout).
  Status wait(std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());
  // Progresses until req completes: spins for spin_time(), then sleeps between events.
  // Returns the request's status (the request is not released) or Timeout.
  Status wait_request(Request* req,
                      std::chrono::nanoseconds timeout = std::chrono::nanoseconds::max());
  // How long a blocking wait polls now before it sleeps: TORUS_SPIN_TIME, lengthened up to
  // TORUS_SPIN_MAX after waits that slept and still ended soon (core/spin_policy.h). A
  // caller's own wait loop uses it to spin as long as wait_request would.
  std::chrono::nanoseconds spin_time() const noexcept;
  // For a caller's own wait loop (polling, then wait()): a wait that polled for spin_time(),
  // went on to sleep and ended `elapsed` after it began, so the spin adapts as for
  // wait_request.
  void note_outlasted_wait(std::chrono::nanoseconds elapsed) noexcept;
  // A file descriptor for an external event loop: readable when progress() has work.
  // Call arm() before sleeping on it: Ok means safe to sleep, NoResource means progress now.
  int event_fd() const noexcept;
  [[nodiscard]] Status arm();

  // Internal: the implementation object, for torus's own C API.
  struct Impl;
  Impl* impl() const noexcept { return impl_.get(); }

 private:
  friend class Context;
  explicit Worker(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct ContextParams {
  const char* const* envp = nullptr;  // nullptr: the process environment
  // Local processes expected to attach to this one's shared memory (lets segments be
  // unlinked early); -1 when unknown.
  int expected_local_peers = -1;
};

class Context {
 public:
  // Reads the configuration (a bad TORUS_* value fails here, naming the variable) and
  // discovers the transports allowed by TORUS_TLS.
  static Result<std::unique_ptr<Context>> create(const ContextParams& params = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  Result<std::unique_ptr<Worker>> create_worker(const WorkerParams& params = {});
  const config::Config& config() const noexcept;
  // One line per transport: name, devices, or why it is not viable.
  std::vector<std::string> transport_report() const;

 private:
  struct Impl;
  explicit Context(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Removes what a job left behind on this host (shared-memory segments of every worker whose
// TORUS_JOB_ID was job_id). For launchers, after the job's processes are gone; returns the
// number of objects removed.
size_t remove_job_resources(std::string_view job_id);

}  // namespace torus
