// Which bootstrap client a process uses: TORUS_BOOTSTRAP's choice, or for `auto` what the
// launcher left in the environment. Pure (the environment is passed in), so it is unit-tested.
#pragma once

#include <string_view>

#include "core/base/status.h"
#include "mpi_shim/bootstrap/launcher_env.h"

namespace torus::boot {

enum class ClientKind { Pmi1, Pmi2, Pmix, Singleton };

const char* client_name(ClientKind kind) noexcept;

// `setting` is TORUS_BOOTSTRAP: auto|pmi1|pmi2|pmix|singleton. auto picks, in order:
//   PMIx       when PMIX_RANK and PMIX_NAMESPACE are set (Slurm --mpi=pmix, PRRTE);
//   PMI-2      when PMI_FD is set and PMI_VERSION=2, or PMI_JOBID and SLURM_JOB_ID are set
//              (Slurm --mpi=pmi2; Hydra also sets PMI_FD, but for PMI-1 clients);
//   PMI-1      when PMI_FD or PMI_PORT is set (Hydra, torus mpirun);
//   singleton  otherwise.
// A forced client whose launcher variables are absent, or PMIx when this build lacks
// libpmix, fails with NotFound / Unsupported and a message naming what is missing.
Result<ClientKind> choose_client(std::string_view setting, const EnvFn& env, bool have_pmix);

}  // namespace torus::boot
