// MPI_Request_get_status (a Test that leaves the request alone), MPI_Status_set_elements(_x)
// and MPI_Status_set_cancelled (for generalized requests and layered libraries).
#include <cstdint>

#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

int set_elements(MPI_Status* status, MPI_Datatype datatype, MPI_Count count, const char* fn) {
  const size_t size = type_size(datatype);
  if (size == 0) return raise_error(nullptr, MPI_ERR_TYPE, fn);
  if (count < 0) return raise_error(nullptr, MPI_ERR_COUNT, fn);
  if (status == MPI_STATUS_IGNORE) return MPI_SUCCESS;
  const uint64_t bytes = static_cast<uint64_t>(count) * size;
  const int cancelled = status->count_hi_and_cancelled & 1;
  status->count_lo = static_cast<int>(static_cast<uint32_t>(bytes));
  status->count_hi_and_cancelled = static_cast<int>(static_cast<uint32_t>(bytes >> 32) << 1) |
                                   cancelled;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

// The outcome is settled into the slot (the torus request released), so the later Wait or
// Test that frees the request reports the same status.
int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  Slot* s = slot_of(request);
  if (!s) return raise_error(nullptr, MPI_ERR_REQUEST, "MPI_Request_get_status");
  if (!slot_done(s)) {
    runtime()->worker->progress();
    if (!slot_done(s)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  slot_settle(s);
  if (status != MPI_STATUS_IGNORE) *status = s->done_status;
  return request_error(s->errors, s->done_code, "MPI_Request_get_status");
}

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements(status, datatype, count, "MPI_Status_set_elements");
}

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == MPI_STATUS_IGNORE) return MPI_SUCCESS;
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Request_get_status)
TORUS_MPI_ALIAS(MPI_Status_set_elements)
TORUS_MPI_ALIAS(MPI_Status_set_elements_x)
TORUS_MPI_ALIAS(MPI_Status_set_cancelled)

}  // extern "C"
