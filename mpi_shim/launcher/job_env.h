// What each rank finds in its environment: the job's identity (TORUS_JOB_ID, TORUS_JOB_KEY),
// its place (PMI_* as Hydra sets them, TORUS_RANK...), and the user's -x / --env.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "mpi_shim/launcher/options.h"

namespace torus::launcher {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct JobIds {
  std::string job_id;   // unique per job: names the job's shm segments
  std::string job_key;  // 128 random bits, hex: the ranks' shared secret
  std::string kvsname;  // the PMI key-value space
};

JobIds make_job_ids();

// The variables the user asked to pass (-x VAR from mpirun's environment, -x VAR=VAL,
// --env VAR=VAL), in order. -x of a variable that is not set is an error.
Result<EnvVars> user_vars(const Options& opts);

// A local rank's full environment: mpirun's own, minus the launcher variables of any job
// mpirun itself runs in (PMI_*, PMIX_*, MPI_LOCAL*, TORUS_RANK...), plus user then rank vars.
std::vector<std::string> local_environment(const EnvVars& user, const EnvVars& rank);

// The variables a remote rank gets on the agent's command line: mpirun's TORUS_* settings,
// then user, then rank vars (the remote shell starts from the remote host's environment).
EnvVars remote_vars(const EnvVars& user, const EnvVars& rank);

// Quotes a word for a POSIX shell (the remote shell re-parses the command line).
std::string shell_quote(const std::string& word);

}  // namespace torus::launcher
