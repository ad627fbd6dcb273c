// What the MPI_I* calls share (icoll_api*.cpp): the staging areas that non-dense datatypes
// need while a nonblocking collective runs, and the requests that carry them.
#pragma once

#include <cstddef>
#include <memory>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/reduce_view.h"
#include "mpi_shim/lib/request.h"
#include "mpi_shim/lib/type_view.h"

namespace torus::mpi {

// They live until the operation completes; what it received is unpacked when it is
// completed.
struct Staging {
  SendView send;
  RecvView recv;
  bool unpack_recv = false;
  ReduceView red;
  size_t red_elements = 0;  // unpacked from red when non-zero
  bool staged() const { return send.staged() || recv.staged() || red.staged(); }
};

// A request that Wait/Test complete at once, successfully (a call with nothing to move).
MPI_Request icoll_done_request(const Comm& c);

// The request of `op`; dense types went straight from the user's buffers and need no
// staging, so `staging` is kept (and unpacked at completion) only when it is used.
int icoll_start(const Comm& c, std::unique_ptr<PendingOp> op, std::unique_ptr<Staging> staging,
                MPI_Request* request);

}  // namespace torus::mpi
