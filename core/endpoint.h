// Endpoint internals: lanes to one peer worker, the protocol tables, and the pending queue
// that keeps messages in order under back-pressure. The protocols themselves are objects in
// protocols/ that run on this endpoint through proto::ProtoEndpoint.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/api/torus.hpp"
#include "core/request.h"
#include "core/worker_address.h"
#include "protocols/proto_endpoint.h"
#include "protocols/proto_tuner.h"
#include "protocols/selector.h"
#include "protocols/wire.h"
#include "transports/transport.h"

namespace torus::core {

class WorkerImpl;

using proto::Lane;

// A control message that met back-pressure: sent from the pending queue in order.
struct PendingItem {
  RequestImpl* req = nullptr;        // a send to (re)start, or a receive's rndv step
  uint8_t am_id = 0;                 // else: a control message
  std::vector<std::byte> bytes;
};

class EndpointImpl final : public Endpoint, public proto::ProtoEndpoint {
 public:
  EndpointImpl(WorkerImpl* worker, WorkerAddress peer);
  ~EndpointImpl();
  Status init();

  uint64_t uid() const noexcept { return peer_.uid; }
  WorkerImpl* worker() const noexcept { return worker_; }
  std::string describe_impl() const;
  size_t rndv_threshold();  // Endpoint::rndv_threshold, from the current costs

  Status send_tag(const void* buf, size_t length, Tag tag, Request** req, const SendParams& p);
  Status send_am(unsigned id, std::span<const std::byte> header,
                 std::span<const std::byte> payload, Request** req, const SendParams& p);

  // One-sided operations of the public API (core/rma.cpp, protocols/rma_ops.cpp).
  Status send_rma(RequestImpl::Rma op, void* buf, size_t length, uint64_t remote_addr,
                  std::span<const std::byte> rkey, Request** req, const SendParams& p);

  // proto::ProtoEndpoint: what the protocols call.
  void send_control(uint8_t am_id, std::span<const std::byte> bytes) override;
  void complete_send(proto::Op& op, Status status) override;
  void complete_recv(proto::Op& op, Status status) override;
  void track(proto::Op& op) override { track(static_cast<RequestImpl*>(&op)); }
  void queue(proto::Op& op) override { queue_request(static_cast<RequestImpl*>(&op)); }
  void protocol_error(const char* what) override;

  // Receives waiting on this endpoint (rndv) are queued to resume from progress.
  void queue_request(RequestImpl* req);
  bool has_pending() const noexcept { return !pending_.empty() || !pending_gets_.empty(); }
  // Runs queued work; returns false while something is still blocked.
  bool progress_pending();
  bool scheduled = false;

  void fail(Status status);
  void track(RequestImpl* req);    // outstanding: failed with the endpoint
  void untrack(RequestImpl* req);

 private:
  void ensure_wireup();
  // First attempt of a new send-side request, or its place in the pending queue.
  Status launch(RequestImpl* req, Request** out, const SendParams& p);
  Status start_send(RequestImpl* req);  // runs the protocol until done/blocked
  // The protocol tables, from the lanes' current costs.
  void build_tables();
  void rebuild_tables();  // and print them under TORUS_PROTO_INFO

  WorkerImpl* worker_;
  WorkerAddress peer_;
  proto::ProtoTable tag_table_;
  proto::ProtoTable sync_table_;
  // For a message sent alone, where it differs from tag_table_: sizes in [alone_min_,
  // alone_max_) take alone_table_'s protocol then (empty when the tables agree).
  proto::ProtoTable alone_table_;
  size_t alone_min_ = 0;
  size_t alone_max_ = 0;
  // The AM lane's cost epoch the tables were built at: a transport that revises its costs
  // (shm measures its eager copies) has them rebuilt at the next send.
  static constexpr uint32_t kNoEpoch = 0;
  const uint32_t* am_cost_epoch_ = &kNoEpoch;
  uint32_t built_epoch_ = 0;
  // Sizes [tune_lo_, tune_hi_) of sends that are not synchronous go eager or by rendezvous
  // as tuner_ measures (protocols/proto_tuner.h); empty when the tuner decides none. Copies
  // of tuner_'s band, so that every send checks it without a pointer test.
  size_t tune_lo_ = SIZE_MAX;
  size_t tune_hi_ = 0;
  std::unique_ptr<proto::ProtoTuner> tuner_;
  proto::ProtoRange eager_range_;
  proto::ProtoRange rndv_range_;
  static constexpr uint32_t kExploreEvery = 64;
  size_t explore_max_ = 0;  // 0 unless the costs send messages below max_eager to rendezvous
  uint32_t explored_ = 0;
  uint64_t last_alone_polls_ = ~uint64_t{0};  // worker's progress_calls() at the last such send
  bool wired_ = false;
  std::deque<PendingItem> pending_;         // sends and control messages, in order
  std::vector<RequestImpl*> pending_gets_;  // receives whose next rndv read met back-pressure
  std::vector<RequestImpl*> running_gets_;
  RequestImpl* outstanding_ = nullptr;  // ep_next/ep_prev list

  // Whether a send in [alone_min_, alone_max_) goes alone: nothing of ours in flight to the
  // peer and the worker polled since the last such send (so not one of a burst of Isends).
  bool sent_alone() noexcept;
};

// The endpoint a request runs on (set for sends, and for receives once a rendezvous began).
inline EndpointImpl* endpoint_of(const RequestImpl* req) noexcept {
  return static_cast<EndpointImpl*>(req->ep);
}

}  // namespace torus::core
