// Neighbor lists of the three topologies (neighbors.h), in the standard's order: a
// grid's neighbors dimension by dimension, the one below (displacement -1) first; a graph's
// in its edge list, the same for receiving and sending; a distributed graph's in-edges and
// out-edges as they were given.
#include "mpi_shim/lib/comm/topo/neighbors.h"

#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {

int neighbor_plan(const Comm& c, NeighborPlan* plan) {
  *plan = NeighborPlan{};
  if (c.cart) {
    const int ndims = static_cast<int>(c.cart->dims.size());
    for (int d = 0; d < ndims; ++d) {
      int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
      (void)PMPI_Cart_shift(c.handle, d, 1, &below, &above);
      plan->sources.insert(plan->sources.end(), {below, above});
      plan->destinations.insert(plan->destinations.end(), {below, above});
      // Phase 2d travels down, 2d + 1 up (beyond 31 dimensions the phases repeat, and the
      // order of posting alone matches them). What comes from below was sent up.
      const int down = (2 * d) % (1 << kPhaseBits), up = (2 * d + 1) % (1 << kPhaseBits);
      plan->destination_phases.insert(plan->destination_phases.end(), {down, up});
      plan->source_phases.insert(plan->source_phases.end(), {up, down});
    }
    return MPI_SUCCESS;
  }
  if (c.graph) {
    const GraphTopology& g = *c.graph;
    const size_t from = c.rank == 0 ? 0 : size_t(g.index[size_t(c.rank) - 1]);
    const size_t to = size_t(g.index[size_t(c.rank)]);
    plan->sources.assign(g.edges.begin() + long(from), g.edges.begin() + long(to));
    plan->destinations = plan->sources;
  } else if (c.dist_graph) {
    plan->sources = c.dist_graph->sources;
    plan->destinations = c.dist_graph->destinations;
  } else {
    return MPI_ERR_TOPOLOGY;
  }
  // Several edges between two processes are matched in the order they are listed, which
  // both ends post in.
  plan->source_phases.assign(plan->sources.size(), 0);
  plan->destination_phases.assign(plan->destinations.size(), 0);
  return MPI_SUCCESS;
}

}  // namespace torus::mpi
