// The staged requests of the nonblocking collectives (staging.h).
#include "mpi_shim/lib/coll/nonblocking/staging.h"

#include <utility>

#include "mpi_shim/lib/request/status.h"

namespace torus::mpi {

MPI_Request icoll_done_request(const Comm& c) {
  MPI_Status st;
  status_empty(&st);
  return request_create(nullptr, false, error_scope(c), st);
}

int icoll_start(const Comm& c, std::unique_ptr<PendingOp> op, std::unique_ptr<Staging> staging,
                MPI_Request* request) {
  if (staging && staging->staged())
    op = std::make_unique<StagedOp<Staging>>(std::move(op), std::move(staging));
  *request = request_create_op(std::move(op), error_scope(c));
  return MPI_SUCCESS;
}

int icoll_start_v(const Comm& c, std::unique_ptr<PendingOp> op,
                  std::unique_ptr<VStaging> staging, MPI_Request* request) {
  auto staged = std::make_unique<StagedOp<VStaging>>(std::move(op), std::move(staging));
  *request = request_create_op(std::move(staged), error_scope(c));
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
