// The staged requests of the nonblocking collectives (icoll_staging.h).
#include "mpi_shim/lib/icoll_staging.h"

#include <utility>

#include "mpi_shim/lib/status.h"

namespace torus::mpi {
namespace {

class StagedColl final : public PendingOp {
 public:
  StagedColl(std::unique_ptr<PendingOp> inner, std::unique_ptr<Staging> staging)
      : inner_(std::move(inner)), staging_(std::move(staging)) {}
  bool poll() override { return inner_->poll(); }
  int finish(MPI_Status* status) override {
    const int code = inner_->finish(status);
    if (code != MPI_SUCCESS) return code;
    if (staging_->unpack_recv) staging_->recv.finish(staging_->recv.bytes());
    if (staging_->red_elements) staging_->red.finish(staging_->red_elements);
    return code;
  }

 private:
  std::unique_ptr<PendingOp> inner_;
  std::unique_ptr<Staging> staging_;
};

}  // namespace

MPI_Request icoll_done_request(const Comm& c) {
  MPI_Status st;
  status_empty(&st);
  return request_create(nullptr, false, c.errhandler, st);
}

int icoll_start(const Comm& c, std::unique_ptr<PendingOp> op, std::unique_ptr<Staging> staging,
                MPI_Request* request) {
  if (staging && staging->staged())
    op = std::make_unique<StagedColl>(std::move(op), std::move(staging));
  *request = request_create_op(std::move(op), c.errhandler);
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
