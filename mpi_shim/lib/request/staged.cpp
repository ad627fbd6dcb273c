// Staged sends and receives behind an MPI_Request (staged.h).
#include "mpi_shim/lib/request/staged.h"

#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {

StagedSend::~StagedSend() {
  if (req_) req_->release();
}

int StagedSend::finish(MPI_Status* st) {
  const int code = req_ ? error_from_status(req_->status()) : MPI_SUCCESS;
  status_empty(st);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = code;
  return code;
}

StagedRecv::~StagedRecv() {
  if (req_) req_->release();
}

void StagedRecv::cancel() {
  if (!req_->completed()) (void)runtime()->worker->cancel(req_);
}

int StagedRecv::finish(MPI_Status* st) {
  const Status s = req_->status();
  if (s == Status::Canceled) {
    status_empty(st);
    if (st != MPI_STATUS_IGNORE) st->count_hi_and_cancelled |= 1;
    return MPI_SUCCESS;
  }
  const int code = error_from_status(s);
  const RecvInfo info = req_->info();
  if (code == MPI_SUCCESS || code == MPI_ERR_TRUNCATE) view_.finish(info.length);
  status_from_recv(st, info, code);
  return code;
}

}  // namespace torus::mpi
