// The bootstrap: how a process of a parallel job learns its rank and exchanges the small
// key-value pairs (worker addresses) that let the ranks connect. One interface, one client
// per launcher protocol: PMI-1 (our mpirun, MPICH Hydra), PMI-2 (Slurm, Hydra), PMIx
// (Slurm --mpi=pmix, PRRTE) and singleton (no launcher: a one-rank job).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace torus::boot {

struct JobInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;   // among the ranks on this host
  int local_size = 1;
  int appnum = 0;       // MPMD: which program of `a : b` this rank runs
  std::string job_id;   // the launcher's job / kvs name; unique per job on this host
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual std::string_view name() const = 0;  // "pmi1", "pmi2", "pmix", "singleton"
  const JobInfo& job() const noexcept { return job_; }

  // Publishes key=value from this rank. Values are arbitrary bytes: clients encode them for
  // their wire (hex on PMI-1/2) and split values longer than the server's limit.
  virtual Status put(std::string_view key, std::string_view value) = 0;
  // Collective: after it returns, every rank's puts before the fence are visible.
  virtual Status fence() = 0;
  // The value rank `rank` put under `key` (after a fence). Fetched on demand, per peer, so a
  // job's start-up is O(N) in total rather than O(N^2).
  virtual Result<std::string> get(int rank, std::string_view key) = 0;
  // Tells the launcher this rank is done (a clean exit follows).
  virtual Status finalize() = 0;
  // Asks the launcher to kill the whole job with exit code `code`; does not return.
  [[noreturn]] virtual void abort(int code, std::string_view message) = 0;

 protected:
  JobInfo job_;
};

// Chooses the client from TORUS_BOOTSTRAP (auto|pmi1|pmi2|pmix|singleton) and, for auto,
// from what the launcher left in the environment. A forced client whose launcher is absent
// fails with a message saying what is missing.
Result<std::unique_ptr<Bootstrap>> open_bootstrap();

}  // namespace torus::boot
