// Where a rank stands among the ranks on its host (local rank and size), from the cheapest
// source that knows: the launcher's environment, the PMI_process_mapping attribute, or, last,
// an exchange of hostnames through the bootstrap itself (one extra fence and N gets per rank).
#pragma once

#include <optional>
#include <string_view>

#include "core/base/status.h"
#include "mpi_shim/bootstrap/launcher_env.h"

namespace torus::boot {

class Bootstrap;

struct LocalRanks {
  int local_rank = 0;
  int local_size = 1;
};

// TORUS_LOCAL_RANK/TORUS_LOCAL_SIZE (torus's mpirun), then MPI_LOCALRANKID/MPI_LOCALNRANKS
// (Hydra), then, when `slurm`, SLURM_LOCALID with the count of SLURM_STEP_TASKS_PER_NODE
// (or SLURM_TASKS_PER_NODE) at SLURM_NODEID. nullopt when none is complete and consistent.
std::optional<LocalRanks> local_ranks_from_env(const EnvFn& env, bool slurm);

// Slurm's "2(x3),1": the task count of node `node` (0-based).
Result<int> tasks_on_node(std::string_view tasks_per_node, int node);

// MPICH's PMI_process_mapping "(vector,(first_node,node_count,ranks_per_node),...)": blocks
// of consecutive ranks placed node after node, the vector repeated until every rank is placed.
Result<LocalRanks> local_ranks_from_mapping(std::string_view mapping, int rank, int size);

// The last resort: every rank puts its hostname, fences, and reads all N hostnames. Every
// rank of the job must call it (it fences).
Result<LocalRanks> local_ranks_by_hostname(Bootstrap& boot);

}  // namespace torus::boot
