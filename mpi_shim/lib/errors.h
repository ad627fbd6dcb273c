// Error reporting through a communicator's error handler: MPI_ERRORS_ARE_FATAL (the
// default) prints the error and aborts the job, MPI_ERRORS_RETURN returns the code.
#pragma once

#include "core/base/status.h"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;

// Passes an error raised by MPI function `fn` on `comm` (nullptr: MPI_COMM_WORLD's handler)
// to the handler; returns `code` when the handler returns.
int raise_error(Comm* comm, int code, const char* fn);
// Shorthand for the common case: only calls raise_error when code != MPI_SUCCESS.
inline int check(Comm* comm, int code, const char* fn) {
  return code == MPI_SUCCESS ? code : raise_error(comm, code, fn);
}
// The MPI error class for a torus status.
int error_from_status(Status s) noexcept;

}  // namespace torus::mpi
