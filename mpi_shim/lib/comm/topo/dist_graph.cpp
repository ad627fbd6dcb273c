// Distributed graph topologies: MPI_Dist_graph_create_adjacent (each rank names its own
// edges), MPI_Dist_graph_create (any rank names any edges; they are sent to both ends) and
// the calls that read them. The new communicator is a duplicate of the old one with the
// edges attached; `reorder` is ignored and info hints are not read.
#include <algorithm>
#include <memory>
#include <vector>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

// MPICH's ABI makes these pointers to library data; any two distinct addresses will do.
namespace {
int g_unweighted_sentinel;
int g_weights_empty_sentinel;
}  // namespace
extern "C" {
int* const MPI_UNWEIGHTED = &g_unweighted_sentinel;
int* const MPI_WEIGHTS_EMPTY = &g_weights_empty_sentinel;
}

namespace {

bool unweighted(const int* weights) { return weights == MPI_UNWEIGHTED; }

// Copies n weights, or n ones for an unweighted graph (MPI_WEIGHTS_EMPTY needs n == 0).
int take_weights(const int* weights, int n, std::vector<int>* out) {
  if (unweighted(weights)) {
    out->assign(size_t(n), 1);
    return MPI_SUCCESS;
  }
  if (n == 0) return MPI_SUCCESS;
  if (!weights || weights == MPI_WEIGHTS_EMPTY) return MPI_ERR_ARG;
  for (int i = 0; i < n; ++i)
    if (weights[i] < 0) return MPI_ERR_ARG;
  out->assign(weights, weights + n);
  return MPI_SUCCESS;
}

int take_ranks(const int* ranks, int n, int size, std::vector<int>* out) {
  if (n > 0 && !ranks) return MPI_ERR_ARG;
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size) return MPI_ERR_RANK;
  out->assign(ranks, ranks + n);
  return MPI_SUCCESS;
}

// The duplicate of comm_old with `topo` attached.
int attach(MPI_Comm comm_old, std::shared_ptr<DistGraphTopology> topo, MPI_Comm* newcomm) {
  if (int e = PMPI_Comm_dup(comm_old, newcomm)) return e;
  Comm* c = comm_get(*newcomm);
  c->cart.reset();
  c->graph.reset();
  c->dist_graph = std::move(topo);
  return MPI_SUCCESS;
}

const DistGraphTopology* dist_graph_of(MPI_Comm comm, const char* fn, int* err) {
  Comm* c = comm_get(comm);
  if (!c) {
    *err = raise_error(nullptr, MPI_ERR_COMM, fn);
    return nullptr;
  }
  if (!c->dist_graph) {
    *err = raise_error(c, MPI_ERR_TOPOLOGY, fn);
    return nullptr;
  }
  return c->dist_graph.get();
}

// One edge as Dist_graph_create sends it to one of its ends.
struct EdgeNote {
  int incoming;  // 1: an edge into the receiver (other = its source); 0: out of it
  int other;
  int weight;
};

}  // namespace

extern "C" {

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info /*info*/, int /*reorder*/, MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create_adjacent";
  Comm* c = comm_get_intra(comm_old);
  if (!c) return raise_error(comm_get(comm_old), MPI_ERR_COMM, fn);
  if (!comm_dist_graph || indegree < 0 || outdegree < 0) return raise_error(c, MPI_ERR_ARG, fn);
  auto g = std::make_shared<DistGraphTopology>();
  int e = take_ranks(sources, indegree, c->size, &g->sources);
  if (!e) e = take_ranks(destinations, outdegree, c->size, &g->destinations);
  if (!e) e = take_weights(sourceweights, indegree, &g->source_weights);
  if (!e) e = take_weights(destweights, outdegree, &g->destination_weights);
  if (e) return raise_error(c, e, fn);
  g->weighted = !unweighted(sourceweights) || !unweighted(destweights);
  return attach(comm_old, std::move(g), comm_dist_graph);
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info /*info*/,
                           int /*reorder*/, MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create";
  Comm* c = comm_get_intra(comm_old);
  if (!c) return raise_error(comm_get(comm_old), MPI_ERR_COMM, fn);
  if (!comm_dist_graph || n < 0 || (n > 0 && (!sources || !degrees)))
    return raise_error(c, MPI_ERR_ARG, fn);
  // Each edge goes to both its ends, grouped by the rank it goes to.
  const size_t size = size_t(c->size);
  std::vector<std::vector<EdgeNote>> to(size);
  int total = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return raise_error(c, MPI_ERR_ARG, fn);
    if (sources[i] < 0 || sources[i] >= c->size) return raise_error(c, MPI_ERR_RANK, fn);
    total += degrees[i];
  }
  if (total > 0 && !destinations) return raise_error(c, MPI_ERR_ARG, fn);
  std::vector<int> w;
  if (int e = take_weights(weights, total, &w)) return raise_error(c, e, fn);
  for (int i = 0, k = 0; i < n; ++i)
    for (int d = 0; d < degrees[i]; ++d, ++k) {
      const int dst = destinations[k];
      if (dst < 0 || dst >= c->size) return raise_error(c, MPI_ERR_RANK, fn);
      to[size_t(sources[i])].push_back({0, dst, w[size_t(k)]});
      to[size_t(dst)].push_back({1, sources[i], w[size_t(k)]});
    }
  // Counts, then the notes themselves, from every rank to every rank.
  std::vector<size_t> scount(size), rcount(size), soff(size), roff(size);
  for (size_t p = 0; p < size; ++p) scount[p] = to[p].size() * sizeof(EdgeNote);
  torus::Status s = coll::alltoall(*c, scount.data(), rcount.data(), sizeof(size_t));
  std::vector<EdgeNote> out, in;
  if (!torus::is_error(s)) {
    size_t sat = 0, rat = 0;
    for (size_t p = 0; p < size; ++p) {
      soff[p] = sat;
      sat += scount[p];
      roff[p] = rat;
      rat += rcount[p];
    }
    for (auto& notes : to) out.insert(out.end(), notes.begin(), notes.end());
    in.resize(rat / sizeof(EdgeNote));
    s = coll::alltoallv(*c, out.data(), scount.data(), soff.data(), in.data(), rcount.data(),
                        roff.data());
  }
  int weighted = unweighted(weights) ? 0 : 1, any_weighted = 0;
  if (!torus::is_error(s)) s = coll::allreduce(*c, &weighted, &any_weighted, 1, MPI_INT, MPI_LOR);
  if (torus::is_error(s)) return check(c, error_from_status(s), fn);
  // In the order they came: by the rank that named them, then as it listed them.
  auto g = std::make_shared<DistGraphTopology>();
  for (const EdgeNote& note : in) {
    auto& ranks = note.incoming ? g->sources : g->destinations;
    auto& ws = note.incoming ? g->source_weights : g->destination_weights;
    ranks.push_back(note.other);
    ws.push_back(note.weight);
  }
  g->weighted = any_weighted != 0;
  return attach(comm_old, std::move(g), comm_dist_graph);
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  int err = MPI_SUCCESS;
  const DistGraphTopology* g = dist_graph_of(comm, "MPI_Dist_graph_neighbors_count", &err);
  if (!g) return err;
  if (!indegree || !outdegree || !weighted)
    return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count");
  *indegree = int(g->sources.size());
  *outdegree = int(g->destinations.size());
  *weighted = g->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  int err = MPI_SUCCESS;
  const DistGraphTopology* g = dist_graph_of(comm, "MPI_Dist_graph_neighbors", &err);
  if (!g) return err;
  if (maxindegree < 0 || maxoutdegree < 0 || (maxindegree > 0 && !sources) ||
      (maxoutdegree > 0 && !destinations))
    return raise_error(comm_get(comm), MPI_ERR_ARG, "MPI_Dist_graph_neighbors");
  const size_t nin = std::min(g->sources.size(), size_t(maxindegree));
  const size_t nout = std::min(g->destinations.size(), size_t(maxoutdegree));
  for (size_t i = 0; i < nin; ++i) {
    sources[i] = g->sources[i];
    if (g->weighted && sourceweights && !unweighted(sourceweights))
      sourceweights[i] = g->source_weights[i];
  }
  for (size_t i = 0; i < nout; ++i) {
    destinations[i] = g->destinations[i];
    if (g->weighted && destweights && !unweighted(destweights))
      destweights[i] = g->destination_weights[i];
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Dist_graph_create_adjacent)
TORUS_MPI_ALIAS(MPI_Dist_graph_create)
TORUS_MPI_ALIAS(MPI_Dist_graph_neighbors_count)
TORUS_MPI_ALIAS(MPI_Dist_graph_neighbors)

}  // extern "C"
