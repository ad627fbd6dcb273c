// The PMI-1 client (MPICH Hydra, torus mpirun). Reads PMI_FD with PMI_RANK and PMI_SIZE, or
// PMI_PORT with PMI_ID (Hydra's -pmi-port); local rank/size as local_ranks.h describes.
#pragma once

#include <memory>

#include "mpi_shim/bootstrap/bootstrap.h"
#include "mpi_shim/bootstrap/launcher_env.h"

namespace torus::boot {

// Connects and runs init, get_maxes, get_appnum and get_my_kvsname. Fails naming the missing
// variable, or with the server's refusal.
Result<std::unique_ptr<Bootstrap>> open_pmi1(const EnvFn& env);

}  // namespace torus::boot
