// open_bootstrap(): reads TORUS_BOOTSTRAP, chooses the client and opens it.
#include "mpi_shim/bootstrap/bootstrap.h"

#include "core/base/config.h"
#include "core/base/log.h"
#include "mpi_shim/bootstrap/choose_client.h"
#include "mpi_shim/bootstrap/pmi1_client.h"
#include "mpi_shim/bootstrap/pmi2_client.h"
#include "mpi_shim/bootstrap/singleton.h"
#if TORUS_HAVE_PMIX
#include "mpi_shim/bootstrap/pmix_client.h"
#endif

namespace torus::boot {

Result<std::unique_ptr<Bootstrap>> open_bootstrap() {
  auto config = config::Config::load();
  if (!config) return config.error();
  const std::string& setting = config->get_string("TORUS_BOOTSTRAP");
  auto kind = choose_client(setting, process_env, TORUS_HAVE_PMIX);
  if (!kind) return kind.error();
  switch (*kind) {
    case ClientKind::Pmi1:
      return open_pmi1(process_env);
    case ClientKind::Pmi2:
      return open_pmi2(process_env);
    case ClientKind::Pmix:
#if TORUS_HAVE_PMIX
      return open_pmix();
#else
      break;  // choose_client refuses PMIx in a build without it
#endif
    case ClientKind::Singleton: {
      // srun without an MPI plugin starts N processes that would each believe they are alone.
      auto tasks = env_count(process_env, "SLURM_STEP_NUM_TASKS");
      if (setting == "auto" && tasks && *tasks > 1)
        TORUS_WARN(
            "no PMI server in the environment, yet Slurm started %d tasks: each runs "
            "as a one-rank job (use srun --mpi=pmi2 or --mpi=pmix)",
            *tasks);
      return open_singleton();
    }
  }
  return make_error(Status::Unsupported, "bootstrap client not built");
}

}  // namespace torus::boot
