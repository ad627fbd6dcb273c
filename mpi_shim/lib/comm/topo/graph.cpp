// Graph topologies (MPI_Graph_create and the calls that read one): the graph is the same on
// every member and attached to a communicator of the first nnodes ranks, made by
// MPI_Comm_split; as for grids, `reorder` is ignored (graph rank = parent rank).
#include <memory>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// index and edges as the standard defines them: index non-decreasing from index[0] >= 0,
// every edge a node of the graph. Returns an MPI error code.
int check_graph(int nnodes, const int index[], const int edges[]) {
  if (nnodes > 0 && !index) return MPI_ERR_ARG;
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev) return MPI_ERR_ARG;
    prev = index[i];
  }
  if (prev > 0 && !edges) return MPI_ERR_ARG;
  for (int k = 0; k < prev; ++k)
    if (edges[k] < 0 || edges[k] >= nnodes) return MPI_ERR_ARG;
  return MPI_SUCCESS;
}

// The graph of `comm`, or nullptr after raising MPI_ERR_COMM / MPI_ERR_TOPOLOGY.
const GraphTopology* graph_of(MPI_Comm comm, const char* fn, int* err) {
  Comm* c = comm_get(comm);
  if (!c) {
    *err = raise_error(nullptr, MPI_ERR_COMM, fn);
    return nullptr;
  }
  if (!c->graph) {
    *err = raise_error(c, MPI_ERR_TOPOLOGY, fn);
    return nullptr;
  }
  return c->graph.get();
}

int first_edge(const GraphTopology& g, int node) {
  return node == 0 ? 0 : g.index[size_t(node) - 1];
}

}  // namespace

extern "C" {

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int /*reorder*/, MPI_Comm* comm_graph) {
  Comm* c = comm_get_intra(comm_old);
  if (!c) return raise_error(comm_get(comm_old), MPI_ERR_COMM, "MPI_Graph_create");
  if (!comm_graph || nnodes < 0 || nnodes > c->size)
    return raise_error(c, MPI_ERR_ARG, "MPI_Graph_create");
  if (int e = check_graph(nnodes, index, edges)) return raise_error(c, e, "MPI_Graph_create");
  auto g = std::make_shared<GraphTopology>();
  g->index.assign(index, index + nnodes);
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  g->edges.assign(edges, edges + nedges);
  const bool member = c->rank < nnodes;
  if (int e = PMPI_Comm_split(comm_old, member ? 0 : MPI_UNDEFINED, c->rank, comm_graph)) return e;
  if (*comm_graph != MPI_COMM_NULL) comm_get(*comm_graph)->graph = std::move(g);
  return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Graph_map");
  if (!newrank || nnodes < 0 || nnodes > c->size)
    return raise_error(c, MPI_ERR_ARG, "MPI_Graph_map");
  if (int e = check_graph(nnodes, index, edges)) return raise_error(c, e, "MPI_Graph_map");
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  int err = MPI_SUCCESS;
  const GraphTopology* g = graph_of(comm, "MPI_Graphdims_get", &err);
  if (!g) return err;
  if (!nnodes || !nedges) return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Graphdims_get");
  *nnodes = int(g->index.size());
  *nedges = int(g->edges.size());
  return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  int err = MPI_SUCCESS;
  const GraphTopology* g = graph_of(comm, "MPI_Graph_get", &err);
  if (!g) return err;
  if (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) || (maxedges > 0 && !edges))
    return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Graph_get");
  for (size_t i = 0; i < g->index.size() && i < size_t(maxindex); ++i) index[i] = g->index[i];
  for (size_t k = 0; k < g->edges.size() && k < size_t(maxedges); ++k) edges[k] = g->edges[k];
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  int err = MPI_SUCCESS;
  const GraphTopology* g = graph_of(comm, "MPI_Graph_neighbors_count", &err);
  if (!g) return err;
  if (rank < 0 || rank >= int(g->index.size()))
    return raise_error(comm_get(comm), MPI_ERR_RANK, "MPI_Graph_neighbors_count");
  if (!nneighbors) return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Graph_neighbors_count");
  *nneighbors = g->index[size_t(rank)] - first_edge(*g, rank);
  return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  int err = MPI_SUCCESS;
  const GraphTopology* g = graph_of(comm, "MPI_Graph_neighbors", &err);
  if (!g) return err;
  if (rank < 0 || rank >= int(g->index.size()))
    return raise_error(comm_get(comm), MPI_ERR_RANK, "MPI_Graph_neighbors");
  if (maxneighbors < 0 || (maxneighbors > 0 && !neighbors))
    return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Graph_neighbors");
  const int from = first_edge(*g, rank), to = g->index[size_t(rank)];
  for (int k = from; k < to && k - from < maxneighbors; ++k)
    neighbors[k - from] = g->edges[size_t(k)];
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Graph_create)
TORUS_MPI_ALIAS(MPI_Graph_map)
TORUS_MPI_ALIAS(MPI_Graphdims_get)
TORUS_MPI_ALIAS(MPI_Graph_get)
TORUS_MPI_ALIAS(MPI_Graph_neighbors_count)
TORUS_MPI_ALIAS(MPI_Graph_neighbors)

}  // extern "C"
