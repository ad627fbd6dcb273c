// Worker internals: interfaces, the AM dispatch table, endpoints by peer uid, tag matching,
// the request pool and the progress/sleep loop.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/api/torus.hpp"
#include "core/request.h"
#include "core/spin_policy.h"
#include "core/tag_match.h"
#include "protocols/selector.h"
#include "transports/transport.h"

namespace torus::core {

class ContextImpl;
class EndpointImpl;
class MemHandleImpl;

struct IfaceEntry {
  std::string tl_name;
  std::string device;
  std::unique_ptr<tl::Iface> iface;
};

// Eager fragments being reassembled, one per sender (fragments are never interleaved).
struct Assembly {
  RequestImpl* recv = nullptr;  // matched receive, or
  Unexpected* unexpected = nullptr;
  size_t total = 0;
  size_t received = 0;
};

class WorkerImpl {
 public:
  WorkerImpl(ContextImpl* ctx, uint64_t uid);
  ~WorkerImpl();
  Status open_ifaces(const WorkerParams& params);

  uint64_t uid() const noexcept { return uid_; }
  // TORUS_THREAD_MODE=multi: public calls serialize on this lock. Recursive, because
  // callbacks run inside progress() and may call back into the API.
  bool thread_multi() const noexcept { return multi_; }
  std::recursive_mutex& api_mutex() noexcept { return mu_; }
  ContextImpl* context() const noexcept { return ctx_; }
  const std::vector<IfaceEntry>& ifaces() const noexcept { return ifaces_; }
  const std::vector<std::byte>& address() const noexcept { return address_; }
  const proto::SelectorConfig& selector_config() const noexcept { return sel_cfg_; }
  bool proto_info() const noexcept { return proto_info_; }
  bool proto_tune() const noexcept { return proto_tune_; }
  size_t rndv_frag_size() const noexcept { return sel_cfg_.rndv_frag_size; }
  // Eager fragments from this many payload bytes go zero-copy where the lane can.
  size_t zcopy_thresh() const noexcept { return zcopy_thresh_; }

  Result<EndpointImpl*> connect(std::span<const std::byte> address);
  EndpointImpl* find_endpoint(uint64_t uid) const noexcept;

  // Tagged receive path.
  Status tag_recv(void* buf, size_t length, Tag tag, Tag mask, Request** req,
                  const RecvParams& params, RequestImpl::CRecvCb c_cb = nullptr);
  bool tag_probe(Tag tag, Tag mask, RecvInfo* info);
  Unexpected* tag_probe_remove(Tag tag, Tag mask, RecvInfo* info);
  Status tag_msg_recv(Unexpected* u, void* buf, size_t length, Request** req,
                      const RecvParams& params);
  Status cancel(RequestImpl* req);

  unsigned progress();
  // How many times progress() ran: a send can tell whether the worker polled since the last.
  uint64_t progress_calls() const noexcept { return progress_calls_; }
  Status wait(std::chrono::nanoseconds timeout);
  Status wait_request(RequestImpl* req, std::chrono::nanoseconds timeout);
  std::chrono::nanoseconds spin_time() const noexcept { return spin_.current(); }
  void note_outlasted_wait(std::chrono::nanoseconds elapsed) noexcept { spin_.outlasted(elapsed); }
  int event_fd() const noexcept { return epoll_fd_; }
  Status arm();

  // Requests.
  RequestImpl* alloc_request() { return pool_.get(this); }
  RequestImpl* find_request(uint64_t id) const noexcept { return pool_.find(id); }
  void complete_send(RequestImpl* req, Status status);
  void complete_recv(RequestImpl* req, Status status);
  void release(RequestImpl* req);
  // Gives back a request that completed inline (no callback ran, the user never saw it).
  void release_now(RequestImpl* req) { pool_.put(req); }
  // Public RMA handles, owned by the worker until mem_deregister.
  MemHandleImpl* adopt_handle(std::unique_ptr<MemHandleImpl> h);
  void drop_handle(MemHandleImpl* h);

  // Endpoints with queued work are progressed after the interfaces.
  void schedule(EndpointImpl* ep);

  // Receive-side protocol steps (core/tag_recv.cpp).
  void on_eager(const std::byte* payload, size_t len, Tag tag, uint64_t sender, uint64_t sreq);
  void on_eager_first(const proto::EagerFirstHdr& h, const std::byte* payload, size_t len);
  void on_eager_middle(const proto::EagerMiddleHdr& h, const std::byte* payload, size_t len);
  void on_rts(const proto::RtsHdr& h, std::span<const std::byte> rkey);
  // from_post: the receive is being posted (it matched an unexpected RTS). The read then
  // waits for the next progress() rather than running inside the posting call.
  void start_rndv_recv(RequestImpl* req, const proto::RtsHdr& h, std::span<const std::byte> rkey,
                       bool from_post = false);
  void on_peer_failed(EndpointImpl* ep, Status status);
  void protocol_error(uint64_t sender, const char* what);

  // User active messages.
  void set_am_handler(unsigned id, AmCallback cb, void* arg);
  void on_user_am(const std::byte* data, size_t len);
  void set_error_handler(EndpointErrorCallback cb, void* arg) {
    error_cb_ = cb;
    error_arg_ = arg;
  }

 private:
  template <uint8_t Id>
  static void am_dispatch(void* arg, const void* data, size_t length) {
    static_cast<WorkerImpl*>(arg)->handle_am(Id, static_cast<const std::byte*>(data), length);
  }
  void register_am_handlers(tl::Iface& iface);
  static void tl_error(void* arg, tl::Endpoint* ep, Status status);
  void handle_am(uint8_t id, const std::byte* data, size_t length);
  void deliver_eager_to(RequestImpl* req, const std::byte* payload, size_t len, size_t total,
                        uint64_t sender, uint64_t sreq);
  void send_ack(uint64_t sender, uint8_t am_id, uint64_t req_id, Status status);
  RequestImpl* new_recv(void* buf, size_t length, Tag tag, Tag mask, const RecvParams& params,
                        RequestImpl::CRecvCb c_cb);
  // Delivers an unexpected message (already off the queue) to a receive and recycles it.
  void finish_recv_from_unexpected(RequestImpl* req, Unexpected* u);

  ContextImpl* ctx_;
  uint64_t uid_;
  std::vector<IfaceEntry> ifaces_;
  std::vector<std::byte> address_;
  int epoll_fd_ = -1;
  std::unordered_map<uint64_t, std::unique_ptr<EndpointImpl>> endpoints_;
  std::unordered_map<MemHandleImpl*, std::unique_ptr<MemHandleImpl>> handles_;
  std::vector<EndpointImpl*> scheduled_;
  std::vector<EndpointImpl*> running_;
  uint64_t progress_calls_ = 0;
  UnexpectedPool unexpected_pool_;  // before matcher_: outlives the queue that points into it
  TagMatcher matcher_;
  std::unordered_map<uint64_t, Assembly> assemblies_;
  RequestPool pool_;
  proto::SelectorConfig sel_cfg_;
  size_t zcopy_thresh_ = 8192;
  bool proto_info_ = false;
  bool proto_tune_ = true;
  SpinPolicy spin_;
  // More local processes than CPUs: an idle poll hands the CPU on (sched_yield), because
  // the peer it waits for may need that very CPU to answer.
  bool yield_when_idle_ = false;
  struct UserAm {
    AmCallback cb = nullptr;
    void* arg = nullptr;
  };
  std::array<UserAm, kMaxUserAmId + 1> user_am_{};
  EndpointErrorCallback error_cb_ = nullptr;
  void* error_arg_ = nullptr;
  bool multi_ = false;
  std::recursive_mutex mu_;
};

}  // namespace torus::core

namespace torus {
struct Worker::Impl {
  std::unique_ptr<core::WorkerImpl> w;
};
}  // namespace torus
