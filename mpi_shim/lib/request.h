// MPI_Request handles: a table of slots holding the torus request behind each nonblocking
// operation, plus the status to report for operations that finished at once.
#pragma once

#include "core/api/torus.hpp"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;

// A new handle for `req` (nullptr: the operation finished when posted, with `done_status`).
// `errhandler` is the communicator's, kept here because the communicator may be freed
// while the request is pending.
MPI_Request request_create(Request* req, bool is_recv, MPI_Errhandler errhandler,
                           const MPI_Status& done_status);

}  // namespace torus::mpi
