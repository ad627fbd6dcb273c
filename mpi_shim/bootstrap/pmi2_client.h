// The PMI-2 client (Slurm `srun --mpi=pmi2`, Hydra when the client asks for version 2). Reads
// PMI_FD and PMI_RANK, and PMI_JOBID, which Slurm requires back in fullinit; local rank/size
// as local_ranks.h describes (SLURM_* variables included).
#pragma once

#include <memory>

#include "mpi_shim/bootstrap/bootstrap.h"
#include "mpi_shim/bootstrap/launcher_env.h"

namespace torus::boot {

// Connects and runs init, fullinit and job-getid. Fails naming the missing variable, or with
// the server's refusal.
Result<std::unique_ptr<Bootstrap>> open_pmi2(const EnvFn& env);

}  // namespace torus::boot
