// MPI_Request handles: a table of slots holding the torus request (or multi-step operation)
// behind each nonblocking operation, the status of operations that finished at once, and
// persistent requests.
#pragma once

#include <memory>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/runtime/errors.h"

namespace torus::mpi {

struct Comm;

// A new handle for `req` (nullptr: the operation finished when posted, with `done_status`).
// `errors` is the communicator's, kept here because the communicator may be freed
// while the request is pending.
MPI_Request request_create(Request* req, bool is_recv, const ErrorScope& errors,
                           const MPI_Status& done_status);

// An operation of several steps behind one MPI_Request (nonblocking collectives, receives of
// non-contiguous data unpacked after the transfer): Test and Wait poll it until it is done.
class PendingOp {
 public:
  virtual ~PendingOp() = default;
  // Advances the operation without blocking (the caller progresses the worker); true once
  // it has finished. Called again after it returned true, it must return true again.
  virtual bool poll() = 0;
  // After poll() returned true: fills *status (which may be MPI_STATUS_IGNORE) and returns
  // the operation's MPI error code. Called once, then the op is destroyed.
  virtual int finish(MPI_Status* status) = 0;
  // MPI_Cancel: asks the operation to end early if it still can (a receive not yet
  // matched); the outcome shows in finish()'s status. Most operations cannot.
  virtual void cancel() {}
  // MPI_Request_free before the op finished: true when the op frees its handle itself once
  // it finishes (a generalized request freed before MPI_Grequest_complete), so the call must
  // neither wait nor release the slot; false: Request_free waits for the op.
  virtual bool free_when_done() { return false; }
  // True: the op outlives finish() and is destroyed with its handle, each completion call
  // asking it again (a generalized request's query_fn runs for every Request_get_status and
  // for the Wait that frees it; its free_fn runs when the handle goes).
  virtual bool finish_repeats() const { return false; }
};

// A handle for a multi-step operation; the request table owns `op` from now on.
MPI_Request request_create_op(std::unique_ptr<PendingOp> op, const ErrorScope& errors);

// The operation behind a persistent request (MPI_Send_init, Recv_init, ...), posted anew by
// each MPI_Start.
class PersistentOp {
 public:
  virtual ~PersistentOp() = default;
  // Posts one instance; returns an MPI error code. On success *req is the torus request that
  // tracks it, or nullptr when it finished at once (its status is then the empty one).
  virtual int start(Request** req) = 0;
  // The same for an instance that needs more than its torus request (non-contiguous data,
  // packed or unpacked around the transfer): *op, when set, tracks it instead of *req.
  virtual int start_op(Request** req, std::unique_ptr<PendingOp>* op) {
    op->reset();
    return start(req);
  }
  // Whether a failing start has already passed its error to the handler (a persistent
  // collective starts through the MPI_I* call, which does), so MPI_Start must not again.
  virtual bool raises_own_errors() const { return false; }
};

// An inactive persistent request; the request table owns `op` from now on.
MPI_Request request_create_persistent(std::unique_ptr<PersistentOp> op, bool is_recv,
                                      const ErrorScope& errors);
// MPI_Start's work: posts an inactive persistent request. Returns an MPI error code
// (MPI_ERR_REQUEST for a request that is not persistent or still active), not yet passed to
// an error handler.
int request_start(MPI_Request request, ErrorScope* errors);

}  // namespace torus::mpi
