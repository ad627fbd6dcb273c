// MPI groups: ordered sets of processes, held as world ranks, behind MPICH-style handles
// (MPI_GROUP_EMPTY 0x48000000; others 0x88000000 | slot). Used by the group functions
// (group.cpp, group_ops.cpp) and by MPI_Comm_create / MPI_Comm_create_group.
#pragma once

#include <memory>
#include <vector>

#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct Group {
  std::vector<int> world_ranks;  // group rank -> world rank
};

// The group behind a handle (MPI_GROUP_EMPTY included), or nullptr for an invalid handle.
// Shared, so a concurrent MPI_Group_free of the handle cannot pull it from under the caller.
std::shared_ptr<const Group> group_get(MPI_Group handle);
// A handle for a new group: MPI_GROUP_EMPTY when empty (no slot used), else a fresh slot.
// Returns an MPI error code (MPI_ERR_INTERN when every slot is taken).
int group_install(std::vector<int> world_ranks, MPI_Group* handle);
// The rank of world rank `w` in `g`, or MPI_UNDEFINED.
int group_rank_of(const Group& g, int w);

}  // namespace torus::mpi
