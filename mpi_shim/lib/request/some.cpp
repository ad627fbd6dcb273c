// MPI_Waitsome and MPI_Testsome: every request of the array that has finished is completed in
// one call, so a caller draining many requests visits each exactly once.
#include <chrono>

#include "mpi_shim/lib/request/slot.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

// One pass: completes every finished active request. Returns false when none is active
// (null and inactive persistent requests are skipped), else sets *outcount (maybe 0).
// *code is the MPI error code to return.
bool complete_finished(int incount, MPI_Request* requests, int* outcount, int* indices,
                       MPI_Status* statuses, int* code, const char* fn) {
  bool any_active = false;
  int n = 0;
  *code = MPI_SUCCESS;
  for (int i = 0; i < incount; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    Slot* s = slot_of(requests[i]);
    if (!s) {
      *code = raise_error(nullptr, MPI_ERR_REQUEST, fn);
      *outcount = n;
      return true;
    }
    if (!slot_active(s)) continue;
    any_active = true;
    if (slot_done(s)) indices[n++] = i;
  }
  if (!any_active) return false;
  ErrorScope eh;
  int first = MPI_SUCCESS;
  for (int k = 0; k < n; ++k) {
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
    Slot* s = slot_of(requests[indices[k]]);
    const ErrorScope this_eh = s->errors;
    const int c = slot_retire(&requests[indices[k]], s, st);
    if (c != MPI_SUCCESS && first == MPI_SUCCESS) {
      first = c;
      eh = this_eh;
    }
  }
  *outcount = n;
  if (first != MPI_SUCCESS)  // with real statuses each one's MPI_ERROR tells which failed
    *code = request_error(eh, statuses == MPI_STATUSES_IGNORE ? first : MPI_ERR_IN_STATUS, fn);
  return true;
}

int check_args(int incount, const int* outcount, const char* fn) {
  if (incount < 0) return raise_error(nullptr, MPI_ERR_COUNT, fn);
  if (outcount == nullptr) return raise_error(nullptr, MPI_ERR_ARG, fn);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Waitsome(int incount, MPI_Request* requests, int* outcount, int* indices,
                  MPI_Status* statuses) {
  if (int e = check_args(incount, outcount, "MPI_Waitsome")) return e;
  PolledWait wait;
  for (;;) {
    int code = MPI_SUCCESS;
    if (!complete_finished(incount, requests, outcount, indices, statuses, &code,
                           "MPI_Waitsome")) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    if (*outcount > 0 || code != MPI_SUCCESS) return code;
    wait.step();
  }
}

int PMPI_Testsome(int incount, MPI_Request* requests, int* outcount, int* indices,
                  MPI_Status* statuses) {
  if (int e = check_args(incount, outcount, "MPI_Testsome")) return e;
  runtime()->worker->progress();
  int code = MPI_SUCCESS;
  if (!complete_finished(incount, requests, outcount, indices, statuses, &code,
                         "MPI_Testsome"))
    *outcount = MPI_UNDEFINED;
  return code;
}

TORUS_MPI_ALIAS(MPI_Waitsome)
TORUS_MPI_ALIAS(MPI_Testsome)

}  // extern "C"
