// The engine under every nonblocking collective: an operation made of rounds, each a set of
// transfers posted at once, the next round posted when the last transfer of the previous one
// completes. Completions arrive as torus callbacks, so an operation advances inside any
// progress of the worker (a blocking Recv, another request's Wait), not only when its own
// request is tested: a rank blocked elsewhere still forwards its part of the collective.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/api/torus.hpp"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi::icoll {

// Who may touch the operation when (no lock: callbacks run inside progress, possibly on
// another thread, and may fire inside the very call that posts the transfer):
//  - `active_` counts the transfers in flight plus one while a runner advances the
//    operation. Whoever brings it to zero (the runner after posting a round that has already
//    completed, or the callback of the round's last transfer) becomes the runner, so exactly
//    one thread runs next_round() at a time, and only when the round has completed.
//  - A failing transfer's callback records the error and cancels the round's receives
//    before it gives up its count; the runner then ends the operation instead of going on.
//  - `done_` is set last by the final runner; after that nothing touches the object, so the
//    request table may finish and destroy it at once.
// The operation copies what it needs of the communicator (rank, context id, endpoints):
// MPI_Comm_free may free the communicator while the operation is pending.
class IcollOp : public PendingOp {
 public:
  ~IcollOp() override;
  IcollOp(const IcollOp&) = delete;
  IcollOp& operator=(const IcollOp&) = delete;

  bool poll() final;
  int finish(MPI_Status* status) final;
  // Posts the first round (or completes an operation with nothing to send); call once,
  // after construction.
  void start();

 protected:
  // Takes the communicator's next collective sequence number (its tags), so every rank must
  // create its collectives on `c` in the same order. `max_round` bounds the transfers of one
  // round.
  IcollOp(Comm& c, size_t max_round);
  // On an intercommunicator: transfers within the local group (send/recv) go on its own
  // intracommunicator's context with that one's next sequence number, transfers to the other
  // group (send_remote/recv_remote) on the intercommunicator's, with its next number; both
  // are taken here, by every process of both groups, in every call.
  struct Inter {};
  IcollOp(Comm& inter, size_t max_round, Inter);

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Sends need an endpoint; a first connect may talk to the bootstrap, which must not happen
  // inside a completion callback. The constructor of each operation connects every peer it
  // will send to.
  void connect(const Comm& c, int peer);
  void send(int peer, int phase, const void* buf, size_t len);
  void recv(int peer, int phase, void* buf, size_t len);
  // The same with `peer` a rank of the remote group of an intercommunicator.
  void connect_remote(const Comm& inter, int peer);
  void send_remote(int peer, int phase, const void* buf, size_t len);
  void recv_remote(int peer, int phase, void* buf, size_t len);

  // Called when the previous round has completed without error (first by start()): does the
  // local work its data allows, then posts the next round with send()/recv(). Returns false,
  // having posted nothing, when the operation is complete. Must not block.
  virtual bool next_round() = 0;

 private:
  static void on_send(Request* req, Status status, void* user);
  static void on_recv(Request* req, Status status, const RecvInfo& info, void* user);
  void transfer_done(Status status);
  void track(Status posted, Request* req);
  void run();
  void fail(Status status);
  bool failed() const { return first_error_.load() != static_cast<int8_t>(Status::Ok); }
  void cancel_round();
  // Endpoints are keyed by peer: local ranks as they are, remote ones as -1 - rank.
  Endpoint* endpoint(int key) const;
  void post_send(int key, uint32_t context, uint32_t seq, int phase, const void* buf,
                 size_t len);
  void post_recv(int peer, uint32_t context, uint32_t seq, int phase, void* buf, size_t len);

  int rank_;
  int size_;
  uint32_t context_;
  uint32_t seq_;
  uint32_t remote_context_ = 0;  // intercommunicators only
  uint32_t remote_seq_ = 0;
  std::vector<std::pair<int, Endpoint*>> endpoints_;  // sorted by peer after start()
  std::atomic<int> active_{1};                        // the constructing thread runs first
  std::atomic<bool> done_{false};
  std::atomic<int8_t> first_error_{static_cast<int8_t>(Status::Ok)};
  // The current round's requests, for canceling on error (read by other threads' callbacks).
  std::unique_ptr<std::atomic<Request*>[]> round_;
  size_t round_capacity_;
  size_t round_size_ = 0;        // runner only
  std::vector<Request*> owned_;  // runner only; released when the operation is destroyed
};

// Creates a collective operation and posts its first round.
template <typename Op, typename... Args>
std::unique_ptr<PendingOp> launch(Args&&... args) {
  auto op = std::make_unique<Op>(std::forward<Args>(args)...);
  op->start();
  return op;
}

}  // namespace torus::mpi::icoll
