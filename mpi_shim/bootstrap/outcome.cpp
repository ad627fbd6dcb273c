// The single log line of a failed bootstrap call.
#include "mpi_shim/bootstrap/outcome.h"

#include "core/base/log.h"

namespace torus::boot {

Status report(const Outcome& outcome, const char* what) {
  if (outcome) return Status::Ok;
  TORUS_ERROR("%s: %s", what, outcome.error().message.c_str());
  return outcome.error().status;
}

}  // namespace torus::boot
