// The round engine of the nonblocking collectives (engine.h): posting on the collective
// context id, completion callbacks, handing the runner role over, failure and cancel.
#include "mpi_shim/lib/coll/nonblocking/engine.h"

#include <algorithm>

#include "core/base/log.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi::icoll {

IcollOp::IcollOp(Comm& c, size_t max_round)
    : rank_(c.rank),
      size_(c.size),
      context_(c.coll_context()),
      seq_(c.coll_seq++),
      round_(std::make_unique<std::atomic<Request*>[]>(max_round)),
      round_capacity_(max_round) {}

IcollOp::IcollOp(Comm& inter, size_t max_round, Inter)
    : rank_(inter.rank),
      size_(inter.size),
      context_(inter.local->coll_context()),
      seq_(inter.local->coll_seq++),
      remote_context_(inter.coll_context()),
      remote_seq_(inter.coll_seq++),
      round_(std::make_unique<std::atomic<Request*>[]>(max_round)),
      round_capacity_(max_round) {}

IcollOp::~IcollOp() {
  // The request table destroys an operation once it is done. Otherwise the process is
  // exiting without MPI_Finalize (static destructors) and its transfers may still be
  // running: nothing is given back then. After MPI_Finalize the requests are gone with the
  // worker.
  if (!done_.load() || runtime() == nullptr) return;
  for (Request* req : owned_) req->release();
}

bool IcollOp::poll() { return done_.load(std::memory_order_acquire); }

int IcollOp::finish(MPI_Status* status) {
  const int code = error_from_status(static_cast<Status>(first_error_.load()));
  status_empty(status, code);
  return code;
}

void IcollOp::connect(const Comm& c, int peer) {
  Endpoint* ep = endpoint_to(c.world_ranks[static_cast<size_t>(peer)]);
  if (!ep) fail(Status::Unreachable);  // endpoint_to logged why
  endpoints_.emplace_back(peer, ep);
}

void IcollOp::connect_remote(const Comm& inter, int peer) {
  Endpoint* ep = endpoint_to(inter.remote_world_ranks[static_cast<size_t>(peer)]);
  if (!ep) fail(Status::Unreachable);
  endpoints_.emplace_back(-1 - peer, ep);
}

Endpoint* IcollOp::endpoint(int key) const {
  auto it = std::lower_bound(endpoints_.begin(), endpoints_.end(), key,
                             [](const auto& entry, int k) { return entry.first < k; });
  TORUS_ASSERT(it != endpoints_.end() && it->first == key);  // the constructor connects it
  return it->second;
}

void IcollOp::start() {
  auto by_peer = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto same_peer = [](const auto& a, const auto& b) { return a.first == b.first; };
  std::sort(endpoints_.begin(), endpoints_.end(), by_peer);
  endpoints_.erase(std::unique(endpoints_.begin(), endpoints_.end(), same_peer),
                   endpoints_.end());
  run();
}

void IcollOp::send(int peer, int phase, const void* buf, size_t len) {
  post_send(peer, context_, seq_, phase, buf, len);
}

void IcollOp::recv(int peer, int phase, void* buf, size_t len) {
  post_recv(peer, context_, seq_, phase, buf, len);
}

void IcollOp::send_remote(int peer, int phase, const void* buf, size_t len) {
  post_send(-1 - peer, remote_context_, remote_seq_, phase, buf, len);
}

void IcollOp::recv_remote(int peer, int phase, void* buf, size_t len) {
  post_recv(peer, remote_context_, remote_seq_, phase, buf, len);
}

void IcollOp::post_send(int key, uint32_t context, uint32_t seq, int phase, const void* buf,
                        size_t len) {
  if (failed()) return;
  SendParams params;
  params.callback = &IcollOp::on_send;
  params.user = this;
  Request* req = nullptr;
  active_.fetch_add(1, std::memory_order_relaxed);
  // The source field is our rank in our own group, on an intercommunicator too.
  Status s = endpoint(key)->tag_send(buf, len, make_tag(context, rank_, coll_tag(seq, phase)),
                                     &req, params);
  track(s, req);
}

void IcollOp::post_recv(int peer, uint32_t context, uint32_t seq, int phase, void* buf,
                        size_t len) {
  if (failed()) return;
  RecvParams params;
  params.callback = &IcollOp::on_recv;
  params.user = this;
  Request* req = nullptr;
  // Counted before posting: the callback may run inside tag_recv (an unexpected message).
  active_.fetch_add(1, std::memory_order_relaxed);
  Status s = runtime()->worker->tag_recv(buf, len, make_tag(context, peer, coll_tag(seq, phase)),
                                         recv_mask(false, false), &req, params);
  track(s, req);
}

void IcollOp::track(Status posted, Request* req) {
  if (!is_error(posted) && req) {
    TORUS_ASSERT(round_size_ < round_capacity_);
    owned_.push_back(req);
    round_[round_size_++].store(req);
    // A transfer that failed meanwhile canceled only what it saw in round_.
    if (failed()) cancel_round();
    return;
  }
  // Finished at once, or not posted: no callback will come for it.
  if (is_error(posted)) fail(posted);
  active_.fetch_sub(1, std::memory_order_relaxed);  // never the last: the runner holds one
}

void IcollOp::on_send(Request* /*req*/, Status status, void* user) {
  static_cast<IcollOp*>(user)->transfer_done(status);
}

void IcollOp::on_recv(Request* /*req*/, Status status, const RecvInfo& /*info*/, void* user) {
  static_cast<IcollOp*>(user)->transfer_done(status);
}

void IcollOp::transfer_done(Status status) {
  // Canceled: by us, after the failure that is already recorded.
  if (is_error(status) && status != Status::Canceled) fail(status);
  if (active_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;  // not ours to touch now
  active_.store(1, std::memory_order_relaxed);
  run();
}

void IcollOp::run() {
  for (;;) {
    for (size_t i = 0; i < round_size_; ++i) round_[i].store(nullptr);
    round_size_ = 0;
    if (failed() || !next_round()) {
      done_.store(true, std::memory_order_release);
      return;  // the request table may destroy the operation from here on
    }
    if (active_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;  // the last callback resumes
    active_.store(1, std::memory_order_relaxed);  // the round completed while being posted
  }
}

void IcollOp::fail(Status status) {
  int8_t ok = static_cast<int8_t>(Status::Ok);
  first_error_.compare_exchange_strong(ok, static_cast<int8_t>(status));
  cancel_round();
}

void IcollOp::cancel_round() {
  // Only unmatched receives can be taken back; sends and matched receives run to completion
  // (their buffers stay valid: the operation lives until its last callback).
  if (runtime() == nullptr) return;
  for (size_t i = 0; i < round_capacity_; ++i)
    if (Request* req = round_[i].load()) (void)runtime()->worker->cancel(req);
}

}  // namespace torus::mpi::icoll
