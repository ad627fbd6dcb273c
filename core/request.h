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
#include "protocols/selector.h"
#include "transports/transport.h"

namespace torus::core {

class EndpointImpl;
class RequestImpl;
class WorkerImpl;
struct Unexpected;

enum class ReqKind : uint8_t { Free, Send, Recv };

// Where a send stands in its protocol.
enum class SendStage : uint8_t {
  Queued,       // on the endpoint's pending list, nothing sent yet
  Fragments,    // eager_bcopy: `offset` bytes sent so far
  WaitAck,      // all sent; waiting for the receiver's sync ack / ATS / FIN-able RTR
  Putting,      // rndv_put: writing into the receiver's buffer
  Done,
};

// Every field of a request that a new use starts afresh, trivially copyable so that the pool
// resets it with one copy of a constant (a few vector stores) instead of destroying and
// rebuilding the whole object: that reset runs for every receive posted and every send that
// waits.
struct RequestState {
  ReqKind kind = ReqKind::Free;
  Status status = Status::InProgress;
  bool done = false;
  bool released = false;  // user gave it back; free it on completion
  bool queued = false;    // on its endpoint's pending list: only that entry resumes it
  WorkerImpl* worker = nullptr;

  // Callbacks (the C API's take the place of the C++ ones).
  using CSendCb = torus_send_cb_t;
  using CRecvCb = torus_recv_cb_t;
  CSendCb c_send_cb = nullptr;
  CRecvCb c_recv_cb = nullptr;
  SendCallback send_cb = nullptr;
  RecvCallback recv_cb = nullptr;
  void* user = nullptr;

  // Common buffer description.
  std::byte* buffer = nullptr;
  size_t length = 0;       // send: message size; recv: buffer size
  Tag tag = 0;
  Tag mask = 0;            // recv only

  // Send state.
  EndpointImpl* ep = nullptr;
  proto::ProtoId proto = proto::ProtoId::EagerShort;
  uint8_t lane = 0;
  SendStage stage = SendStage::Queued;
  bool sync = false;
  bool acked = false;               // sync eager: the receiver matched it
  unsigned am_user_id = 0;           // am_send: user handler id
  enum class Rma : uint8_t { None, Put, Get, Flush } rma = Rma::None;
  size_t offset = 0;                 // bytes sent/read/written so far
  size_t inflight = 0;               // outstanding transport completions
  uint64_t peer_req_id = 0;          // rndv_put: receiver's request id (from RTR)
  uint64_t put_remote_addr = 0;
  size_t put_length = 0;

  // Receive state.
  RecvInfo info;
  uint64_t sender_uid = 0;
  bool matched = false;
  Status recv_status = Status::Ok;  // BufferTooSmall when truncated
  Status xfer_status = Status::Ok;  // first failure of a rendezvous get/put fragment

  // Intrusive links: posted queue / endpoint pending list / endpoint outstanding list.
  RequestImpl* next = nullptr;
  RequestImpl* prev = nullptr;
  RequestImpl* ep_next = nullptr;
  RequestImpl* ep_prev = nullptr;

  tl::Completion comp;  // transport completions of get/put fragments
};
static_assert(std::is_trivially_copyable_v<RequestState>);
static_assert(std::is_standard_layout_v<RequestState>);

class RequestImpl final : public Request, public RequestState {
 public:
  // The fields, not Request's accessors of the same names.
  using RequestState::info;
  using RequestState::status;

  // Identity on the wire: pool index and generation, so a stale id is recognised.
  uint64_t id() const noexcept { return (uint64_t{generation} << 32) | index; }
  // The request whose `comp` a transport completed.
  static RequestImpl* of_completion(tl::Completion* c) noexcept {
    auto* st = reinterpret_cast<RequestState*>(reinterpret_cast<char*>(c) -
                                               offsetof(RequestState, comp));
    return static_cast<RequestImpl*>(st);
  }

  // Kept across uses (the pool empties them on put): not part of RequestState.
  uint32_t index = 0;
  uint32_t generation = 0;
  std::vector<std::byte> am_header;  // am_send: header copy when queued
  std::unique_ptr<tl::MemRegion> mr;
  std::vector<std::byte> peer_rkey;  // rndv: the peer's packed key
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
  void grow();
  std::vector<std::unique_ptr<RequestImpl[]>> chunks_;
  RequestImpl* free_ = nullptr;
  size_t in_use_ = 0;
};

}  // namespace torus::core
