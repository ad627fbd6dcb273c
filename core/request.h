// Internal request: one object for tag sends, receives and active messages, pooled per
// worker so the eager fast path never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/api/torus.h"
#include "core/api/torus.hpp"
#include "protocols/proto_op.h"
#include "protocols/selector.h"
#include "transports/transport.h"

namespace torus::core {

class EndpointImpl;
class RequestImpl;
class WorkerImpl;
struct Unexpected;

enum class ReqKind : uint8_t { Free, Send, Recv };
using proto::SendStage;

// The fields of the API side of a request that a new use starts afresh (the protocol side
// is proto::OpState), trivially copyable so that the pool resets it with one copy of a
// constant (a few vector stores) instead of destroying and rebuilding the whole object: that
// reset runs for every receive posted and every send that waits.
struct RequestState {
  ReqKind kind = ReqKind::Free;
  Status status = Status::InProgress;
  bool released = false;  // user gave it back; free it on completion
  bool matched = false;   // receive: a message was matched to it
  WorkerImpl* worker = nullptr;

  // Callbacks (the C API's take the place of the C++ ones).
  using CSendCb = torus_send_cb_t;
  using CRecvCb = torus_recv_cb_t;
  CSendCb c_send_cb = nullptr;
  CRecvCb c_recv_cb = nullptr;
  SendCallback send_cb = nullptr;
  RecvCallback recv_cb = nullptr;
  void* user = nullptr;

  Tag mask = 0;              // recv only
  unsigned am_user_id = 0;   // am_send: user handler id + 1
  RecvInfo info;             // receive: the matched message

  // Intrusive links: posted queue / endpoint pending list / endpoint outstanding list.
  RequestImpl* next = nullptr;
  RequestImpl* prev = nullptr;
  RequestImpl* ep_next = nullptr;
  RequestImpl* ep_prev = nullptr;
};
static_assert(std::is_trivially_copyable_v<RequestState>);
static_assert(std::is_standard_layout_v<RequestState>);

// A request: what the protocols see of it (proto::Op: buffer, protocol state, keys) and
// what only the API sees (callbacks, tag matching, the pool's links).
class RequestImpl final : public Request, public proto::Op, public RequestState {
 public:
  // The fields, not Request's accessors of the same names.
  using RequestState::info;
  using RequestState::status;
  using Rma = proto::RmaOp;

  // Kept across uses (the pool empties it on put): not part of RequestState.
  std::vector<std::byte> am_header;  // am_send: header copy when queued
};

// Free list of requests in stable chunks; ids map back to objects in O(1).
class RequestPool {
 public:
  // Inline with the chunk allocation out of line: a small message pays one get() and one
  // put(), and the inlined growth path made get() save and restore six registers.
  RequestImpl* get(WorkerImpl* worker) {
    if (free_ == nullptr) [[unlikely]]
      grow();
    RequestImpl* r = free_;
    free_ = r->next;
    // put() emptied the owning members; the rest starts afresh. Copied from a constant so
    // the compiler emits vector stores: for the bare `= RequestState{}` gcc chose `rep
    // stos`, whose start-up cost was a tenth of a small receive's time in a VM.
    std::memcpy(static_cast<RequestState*>(r), &kFresh, sizeof(RequestState));
    std::memcpy(static_cast<proto::OpState*>(r), &kFreshOp, sizeof(proto::OpState));
    ++r->generation;
    r->worker = worker;
    ++in_use_;
    return r;
  }
  void put(RequestImpl* r) {
    r->kind = ReqKind::Free;
    r->mr.reset();
    r->am_header.clear();
    r->peer_rkey.clear();
    r->next = free_;
    free_ = r;
    --in_use_;
  }
  // The live request with this wire id, or nullptr when stale or out of range.
  RequestImpl* find(uint64_t id) const noexcept;
  size_t in_use() const noexcept { return in_use_; }
  // Drops every request's memory registration: runs before the interfaces are destroyed.
  void drop_registrations() noexcept;

 private:
  static constexpr size_t kChunk = 256;
  static const RequestState kFresh;
  static const proto::OpState kFreshOp;
  void grow();
  std::vector<std::unique_ptr<RequestImpl[]>> chunks_;
  RequestImpl* free_ = nullptr;
  size_t in_use_ = 0;
};

}  // namespace torus::core
