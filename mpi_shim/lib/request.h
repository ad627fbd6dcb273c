// MPI_Request handles: a table of slots holding the torus request behind each nonblocking
// operation, plus the status to report for operations that finished at once.
#pragma once

#include <memory>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;

// A new handle for `req` (nullptr: the operation finished when posted, with `done_status`).
// `errhandler` is the communicator's, kept here because the communicator may be freed
// while the request is pending.
MPI_Request request_create(Request* req, bool is_recv, MPI_Errhandler errhandler,
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
};

// A handle for a multi-step operation; the request table owns `op` from now on.
MPI_Request request_create_op(std::unique_ptr<PendingOp> op, MPI_Errhandler errhandler);

}  // namespace torus::mpi
