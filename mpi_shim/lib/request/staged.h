// A send or receive of non-contiguous data behind one MPI_Request (persistent requests'
// instances, Imrecv): the staging buffer lives until the transfer is done, and a receive is
// unpacked when the request is completed.
#pragma once

#include "core/api/torus.hpp"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi {

class StagedSend final : public PendingOp {
 public:
  // `req` may be nullptr (the send finished when posted).
  StagedSend(SendView view, Request* req) : view_(std::move(view)), req_(req) {}
  ~StagedSend() override;
  bool poll() override { return !req_ || req_->completed(); }
  int finish(MPI_Status* status) override;

 private:
  SendView view_;
  Request* req_;
};

class StagedRecv final : public PendingOp {
 public:
  StagedRecv(RecvView view, Request* req) : view_(std::move(view)), req_(req) {}
  ~StagedRecv() override;
  bool poll() override { return req_->completed(); }
  int finish(MPI_Status* status) override;
  void cancel() override;

 private:
  RecvView view_;
  Request* req_;
};

}  // namespace torus::mpi
