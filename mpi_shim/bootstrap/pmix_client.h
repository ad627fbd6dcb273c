// The PMIx client through libpmix (Slurm `srun --mpi=pmix`, PRRTE). Built only when CMake
// found libpmix (TORUS_HAVE_PMIX); the PMIx server's variables (PMIX_NAMESPACE, PMIX_RANK,
// PMIX_SERVER_URI*) are read by libpmix itself.
#pragma once

#include <memory>

#include "mpi_shim/bootstrap/bootstrap.h"

namespace torus::boot {

// PMIx_Init, then the job size, local rank/size and appnum from the server's job data.
Result<std::unique_ptr<Bootstrap>> open_pmix();

}  // namespace torus::boot
