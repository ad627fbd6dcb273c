// Raising errors through handlers, error strings and classes (MPI_Error_string,
// MPI_Comm_set_errhandler).
#include "mpi_shim/lib/runtime/errors.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/error_codes.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"
#include "mpi_shim/lib/tool/tool.h"

namespace torus::mpi {
namespace {

const char* error_text(int code) {
  switch (code) {
    case MPI_SUCCESS: return "no error";
    case MPI_ERR_BUFFER: return "invalid buffer pointer";
    case MPI_ERR_COUNT: return "invalid count argument";
    case MPI_ERR_TYPE: return "invalid datatype";
    case MPI_ERR_TAG: return "invalid tag";
    case MPI_ERR_COMM: return "invalid communicator";
    case MPI_ERR_RANK: return "invalid rank";
    case MPI_ERR_ROOT: return "invalid root";
    case MPI_ERR_GROUP: return "invalid group";
    case MPI_ERR_OP: return "invalid reduction operation (or not defined on this datatype)";
    case MPI_ERR_TOPOLOGY: return "invalid topology (the communicator has none of that kind)";
    case MPI_ERR_DIMS: return "invalid dimension argument";
    case MPI_ERR_INFO: return "invalid info object";
    case MPI_ERR_INFO_KEY: return "invalid info key (empty or too long)";
    case MPI_ERR_INFO_VALUE: return "invalid info value (null or too long)";
    case MPI_ERR_INFO_NOKEY: return "the info object has no such key";
    case MPI_ERR_ARG: return "invalid argument";
    case MPI_ERR_UNKNOWN: return "unknown error";
    case MPI_ERR_TRUNCATE: return "message truncated: the receive buffer is too small";
    case MPI_ERR_OTHER: return "other error (see the message printed before)";
    case MPI_ERR_INTERN: return "internal error";
    case MPI_ERR_IN_STATUS: return "error code is in the status";
    case MPI_ERR_PENDING: return "pending request";
    case MPI_ERR_REQUEST: return "invalid request";
    case MPI_ERR_NO_MEM: return "out of memory";
    case MPI_ERR_KEYVAL: return "invalid attribute key";
    case MPI_ERR_WIN: return "invalid window";
    case MPI_ERR_ACCESS: return "permission denied for the file";
    case MPI_ERR_AMODE: return "invalid access mode";
    case MPI_ERR_BAD_FILE: return "invalid file name";
    case MPI_ERR_CONVERSION: return "data conversion failed";
    case MPI_ERR_DUP_DATAREP: return "data representation already defined";
    case MPI_ERR_FILE_EXISTS: return "the file exists";
    case MPI_ERR_FILE_IN_USE: return "the file is in use";
    case MPI_ERR_FILE: return "invalid file handle";
    case MPI_ERR_IO: return "input/output error";
    case MPI_ERR_NO_SPACE: return "no space left on the device";
    case MPI_ERR_NO_SUCH_FILE: return "no such file";
    case MPI_ERR_QUOTA: return "disk quota exceeded";
    case MPI_ERR_READ_ONLY: return "the file or file system is read-only";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "unsupported data representation";
    case MPI_ERR_BASE: return "invalid base address";
    case MPI_ERR_LOCKTYPE: return "invalid lock type";
    case MPI_ERR_RMA_CONFLICT: return "conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "wrong synchronization of RMA calls (no epoch open for this)";
    case MPI_ERR_SIZE: return "invalid size argument";
    case MPI_ERR_DISP: return "invalid displacement argument";
    case MPI_ERR_ASSERT: return "invalid assertion argument";
    case MPI_ERR_RMA_RANGE: return "target memory is not part of the window";
    case MPI_ERR_RMA_ATTACH: return "memory cannot be attached to the window";
    case MPI_ERR_RMA_SHARED: return "memory cannot be shared among the window's processes";
    case MPI_ERR_RMA_FLAVOR: return "the window's flavor does not allow this call";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "operation not supported by torus's MPI yet";
    case MPI_ERR_PROC_ABORTED: return "a peer process failed or the connection to it was lost";
    case MPI_ERR_SESSION: return "invalid session";
    case MPI_ERR_SPAWN: return "cannot spawn processes: a torus job is the ranks its launcher "
                               "started";
    case MPI_ERR_PORT: return "invalid port: torus jobs cannot connect to one another";
    case MPI_ERR_NAME: return "no service published under that name";
    case MPI_ERR_SERVICE: return "cannot publish or unpublish a service: torus has no name "
                                 "service";
    default: return tool::error_text(code);  // MPI_T_ERR_*, or nullptr
  }
}

}  // namespace

int error_from_status(Status s) noexcept {
  switch (s) {
    case Status::Ok: case Status::InProgress: return MPI_SUCCESS;
    case Status::BufferTooSmall: return MPI_ERR_TRUNCATE;
    case Status::InvalidParam: return MPI_ERR_ARG;
    case Status::NoMemory: return MPI_ERR_NO_MEM;
    case Status::Unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case Status::Unreachable: case Status::ConnectionReset: return MPI_ERR_PROC_ABORTED;
    default: return MPI_ERR_OTHER;
  }
}

ErrorScope error_scope(const Comm* comm) {
  if (!comm) comm = comm_get(MPI_COMM_WORLD);
  if (!comm) return ErrorScope{};  // outside Init..Finalize
  return ErrorScope{comm->errhandler, comm->handle};
}

int raise_in_scope(const ErrorScope& scope, int code, const char* fn) {
  if (scope.handler == MPI_ERRORS_RETURN) return code;
  if (MPI_Comm_errhandler_function* user = errhandler_function(scope.handler)) {
    if (scope.is_file) {  // a pointer handle: the function was registered with that shape
      MPI_File file = scope.file;
      int passed = code;
      reinterpret_cast<MPI_File_errhandler_function*>(user)(&file, &passed, fn);
      return code;
    }
    // MPI_Comm and MPI_Win are both ints: a window's handler has the same shape.
    MPI_Comm handle = scope.win != MPI_WIN_NULL ? scope.win : scope.comm;
    int passed = code;
    user(&handle, &passed, fn);
    return code;
  }
  std::string user_text;
  const char* text = error_text(code);
  if (!text && user_error(code, nullptr, &user_text)) text = user_text.c_str();
  Runtime* rt = runtime();
  std::fprintf(stderr, "torus MPI: rank %d: %s: %s (error code %d); aborting the job\n",
               rt ? rt->world_rank : 0, fn, text ? text : "unknown error", code);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, code);
  return code;  // not reached
}

int raise_error(Comm* comm, int code, const char* fn) {
  return raise_in_scope(error_scope(comm), code, fn);
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  std::string user_text;
  const char* text = error_text(errorcode);
  if (!text && user_error(errorcode, nullptr, &user_text)) text = user_text.c_str();
  if (!text) return MPI_ERR_ARG;
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int* errorclass) {
  // The library's codes are their own classes; the application's know theirs.
  if (error_text(errorcode)) {
    *errorclass = errorcode;
    return MPI_SUCCESS;
  }
  return user_error(errorcode, errorclass, nullptr) ? MPI_SUCCESS : MPI_ERR_ARG;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_set_errhandler");
  if (!errhandler_settable(errhandler))
    return raise_error(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler");
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_get_errhandler");
  if (!errhandler) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler");
  *errhandler = c->errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Error_string)
TORUS_MPI_ALIAS(MPI_Error_class)
TORUS_MPI_ALIAS(MPI_Comm_set_errhandler)
TORUS_MPI_ALIAS(MPI_Comm_get_errhandler)

}  // extern "C"
