// The singleton bootstrap: no launcher, so this process is rank 0 of a one-rank job and its
// key-value space lives in memory.
#pragma once

#include <memory>

#include "mpi_shim/bootstrap/bootstrap.h"

namespace torus::boot {

std::unique_ptr<Bootstrap> open_singleton();

}  // namespace torus::boot
