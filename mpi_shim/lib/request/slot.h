// Inside the request table (request.cpp): what an MPI_Request handle resolves to, and the
// steps every completion call shares (Wait*, Test*, Waitsome/Testsome, Request_get_status,
// Start), so those calls can live in files of their own.
#pragma once

#include <memory>

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi {

struct Slot {
  // What tracks the operation now: a torus request, or a multi-step operation, or nothing
  // (finished, its outcome in done_status/done_code; or an inactive persistent request).
  Request* req = nullptr;
  std::unique_ptr<PendingOp> op;
  bool is_recv = false;
  ErrorScope errors;
  MPI_Status done_status{};
  int done_code = MPI_SUCCESS;
  // Persistent requests (MPI_Send_init, ...): the operation MPI_Start posts again; `active`
  // between Start and the completion call that makes the request inactive again.
  std::unique_ptr<PersistentOp> persistent;
  bool active = false;
};

// The slot behind a handle, or nullptr for MPI_REQUEST_NULL and invalid handles.
Slot* slot_of(MPI_Request h);
// Whether the slot takes part in Waitany/Waitsome/...: false for an inactive persistent
// request, which the standard treats like MPI_REQUEST_NULL there.
inline bool slot_active(const Slot* s) { return !s->persistent || s->active; }
// Whether the slot's operation has finished (without progressing the worker).
bool slot_done(Slot* s);
// Blocks until the slot's operation has finished.
void slot_wait(Slot* s);
// Once finished: moves the outcome into done_status/done_code and releases what tracked the
// operation; the handle stays valid (MPI_Request_get_status).
void slot_settle(Slot* s);
// Once finished: settles the slot, reports its status into *st (may be MPI_STATUS_IGNORE),
// then frees the handle (*handle becomes MPI_REQUEST_NULL) or, for a persistent request,
// makes it inactive. Returns the operation's MPI error code.
int slot_retire(MPI_Request* handle, Slot* s, MPI_Status* st);
// Reports a failed request's code through its communicator's handler (raise_in_scope).
int request_error(const ErrorScope& errors, int code, const char* fn);

}  // namespace torus::mpi
