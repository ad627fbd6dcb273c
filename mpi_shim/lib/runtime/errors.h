// Error reporting through a communicator's error handler: MPI_ERRORS_ARE_FATAL (the
// default) prints the error and aborts the job, MPI_ERRORS_RETURN returns the code, a
// user-defined handler is called and the code returned.
#pragma once

#include "core/base/status.h"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Comm;

// Where an error goes: a handler, and the communicator a user-defined handler is called
// with. Requests keep one, since their communicator may be freed before they fail.
struct ErrorScope {
  MPI_Errhandler handler = MPI_ERRORS_ARE_FATAL;
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Win win = MPI_WIN_NULL;  // set: a window's error, the handler gets the window
  bool is_file = false;        // a file's error (MPI_FILE_NULL's too): the handler gets `file`
  MPI_File file = MPI_FILE_NULL;
};
// `comm`'s (nullptr: MPI_COMM_WORLD's).
ErrorScope error_scope(const Comm* comm);
inline ErrorScope error_scope(const Comm& comm) { return error_scope(&comm); }
// Passes an error raised by MPI function `fn` to the scope's handler: MPI_ERRORS_RETURN and
// a user handler that returns give `code` back; MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT
// print it and end the job.
int raise_in_scope(const ErrorScope& scope, int code, const char* fn);
// The same through `comm`'s handler (nullptr: MPI_COMM_WORLD's).
int raise_error(Comm* comm, int code, const char* fn);

// User-defined handlers (errhandler.cpp): whether `eh` is a predefined handler or one made
// by MPI_Comm_create_errhandler and not freed; and the function behind a user handler
// (nullptr for a predefined one).
bool errhandler_settable(MPI_Errhandler eh) noexcept;
// A *_get_errhandler call handed out another reference to `eh` (no-op for predefined ones).
void errhandler_retain(MPI_Errhandler eh) noexcept;
MPI_Comm_errhandler_function* errhandler_function(MPI_Errhandler eh) noexcept;
// Shorthand for the common case: only calls raise_error when code != MPI_SUCCESS.
inline int check(Comm* comm, int code, const char* fn) {
  return code == MPI_SUCCESS ? code : raise_error(comm, code, fn);
}
// The MPI error class for a torus status.
int error_from_status(Status s) noexcept;

}  // namespace torus::mpi
