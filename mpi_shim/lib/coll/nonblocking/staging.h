// What the MPI_I* calls share (api*.cpp): the staging areas that non-dense datatypes
// need while a nonblocking collective runs, and the requests that carry them.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/coll/reduce_view.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/blocks.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/request/request.h"

namespace torus::mpi {

// A pending operation with the staging areas it moves data through: they live until it
// completes, and S::complete() unpacks what it received once it has succeeded.
template <typename S>
class StagedOp final : public PendingOp {
 public:
  StagedOp(std::unique_ptr<PendingOp> inner, std::unique_ptr<S> staging)
      : inner_(std::move(inner)), staging_(std::move(staging)) {}
  bool poll() override { return inner_->poll(); }
  int finish(MPI_Status* status) override {
    const int code = inner_->finish(status);
    if (code == MPI_SUCCESS) staging_->complete();
    return code;
  }

 private:
  std::unique_ptr<PendingOp> inner_;
  std::unique_ptr<S> staging_;
};

// The staging of the MPI_I* calls on whole buffers (api.cpp, api_reduce.cpp).
struct Staging {
  SendView send;
  RecvView recv;
  bool unpack_recv = false;
  ReduceView red;
  size_t red_elements = 0;  // unpacked from red when non-zero
  bool staged() const { return send.staged() || recv.staged() || red.staged(); }
  void complete() {
    if (unpack_recv) recv.finish(recv.bytes());
    if (red_elements) red.finish(red_elements);
  }
};

// The staging of the vector forms (api_v.cpp, coll/inter/nonblocking_api.cpp): per-block areas.
struct VStaging {
  TypeBlocks sblocks, rblocks;
  SendView send;
  RecvView recv;
  bool unpack_rblocks = false;
  bool unpack_recv = false;
  void complete() {
    if (unpack_rblocks) rblocks.unpack_all();
    if (unpack_recv) recv.finish(recv.bytes());
  }
};

// The request of a vector-form operation; `staging` lives until it completes.
int icoll_start_v(const Comm& c, std::unique_ptr<PendingOp> op,
                  std::unique_ptr<VStaging> staging, MPI_Request* request);

// A request that Wait/Test complete at once, successfully (a call with nothing to move).
MPI_Request icoll_done_request(const Comm& c);

// The request of `op`; dense types went straight from the user's buffers and need no
// staging, so `staging` is kept (and unpacked at completion) only when it is used.
int icoll_start(const Comm& c, std::unique_ptr<PendingOp> op, std::unique_ptr<Staging> staging,
                MPI_Request* request);

}  // namespace torus::mpi
