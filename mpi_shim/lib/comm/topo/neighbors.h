// The neighbors of a process in its communicator's topology, as the neighborhood
// collectives (MPI_Neighbor_*) use them: receive block i comes from sources[i], send block j
// goes to destinations[j].
#pragma once

#include <vector>

#include "mpi_shim/lib/comm/comm.h"

namespace torus::mpi {

struct NeighborPlan {
  // Communicator ranks; MPI_PROC_NULL at the edge of a non-periodic grid (nothing moves).
  std::vector<int> sources, destinations;
  // The phase each message carries, where matching by order is not enough: on a grid whose
  // side is 1 or 2, the neighbor below and the one above are the same process, and each
  // direction needs its own phase so that the block sent up lands where the block from
  // below belongs.
  std::vector<int> source_phases, destination_phases;
};

// MPI_ERR_TOPOLOGY when `c` has no topology, else MPI_SUCCESS.
int neighbor_plan(const Comm& c, NeighborPlan* plan);

}  // namespace torus::mpi
