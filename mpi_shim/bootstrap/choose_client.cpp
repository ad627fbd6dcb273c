// The client choice: forced by TORUS_BOOTSTRAP or read from the launcher's variables.
#include "mpi_shim/bootstrap/choose_client.h"

#include <string>

namespace torus::boot {
namespace {

bool has(const EnvFn& env, const char* name) {
  const char* v = env(name);
  return v && *v;
}

bool is(const EnvFn& env, const char* name, std::string_view value) {
  const char* v = env(name);
  return v && value == v;
}

Error no_pmix_support() {
  return make_error(Status::Unsupported,
                    "this process was started by a PMIx server (PMIX_NAMESPACE and PMIX_RANK "
                    "are set) but torus was built without libpmix: rebuild with libpmix "
                    "(Debian: libpmix-dev) or launch with srun --mpi=pmi2");
}

}  // namespace

const char* client_name(ClientKind kind) noexcept {
  switch (kind) {
    case ClientKind::Pmi1:
      return "pmi1";
    case ClientKind::Pmi2:
      return "pmi2";
    case ClientKind::Pmix:
      return "pmix";
    case ClientKind::Singleton:
      return "singleton";
  }
  return "?";
}

Result<ClientKind> choose_client(std::string_view setting, const EnvFn& env, bool have_pmix) {
  const bool pmix_env = has(env, "PMIX_RANK") && has(env, "PMIX_NAMESPACE");
  const bool fd = has(env, "PMI_FD");
  const bool port = has(env, "PMI_PORT");
  if (setting == "singleton") return ClientKind::Singleton;
  if (setting == "pmix") {
    if (!have_pmix)
      return make_error(Status::Unsupported,
                        "TORUS_BOOTSTRAP=pmix, but torus was built "
                        "without libpmix (Debian: libpmix-dev)");
    if (!pmix_env)
      return make_error(Status::NotFound,
                        "TORUS_BOOTSTRAP=pmix, but PMIX_NAMESPACE or PMIX_RANK is not set: "
                        "this process was not started by a PMIx server (srun --mpi=pmix, "
                        "prterun)");
    return ClientKind::Pmix;
  }
  if (setting == "pmi2") {
    if (!fd)
      return make_error(Status::NotFound,
                        "TORUS_BOOTSTRAP=pmi2, but PMI_FD is not set: this process was not "
                        "started by a PMI-2 launcher (srun --mpi=pmi2, mpiexec.hydra)");
    return ClientKind::Pmi2;
  }
  if (setting == "pmi1") {
    if (!fd && !port)
      return make_error(Status::NotFound,
                        "TORUS_BOOTSTRAP=pmi1, but neither PMI_FD nor PMI_PORT is set: this "
                        "process was not started by a PMI-1 launcher (torus mpirun, "
                        "mpiexec.hydra)");
    return ClientKind::Pmi1;
  }
  if (setting != "auto")
    return make_error(Status::InvalidParam, "TORUS_BOOTSTRAP='" + std::string(setting) +
                                                "' is not one of auto|pmi1|pmi2|pmix|singleton");
  if (pmix_env) {
    if (have_pmix) return ClientKind::Pmix;
    if (!fd && !port) return no_pmix_support();
  }
  if (fd) {
    if (is(env, "PMI_VERSION", "2")) return ClientKind::Pmi2;
    if (is(env, "PMI_VERSION", "1")) return ClientKind::Pmi1;
    // Slurm's pmi2 plugin hands out PMI_JOBID; Hydra never sets it.
    if (has(env, "PMI_JOBID") && has(env, "SLURM_JOB_ID")) return ClientKind::Pmi2;
    return ClientKind::Pmi1;
  }
  if (port) return ClientKind::Pmi1;
  return ClientKind::Singleton;
}

}  // namespace torus::boot
