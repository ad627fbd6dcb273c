// Communicators made from another: MPI_Comm_split (an allgather of every member's color and
// key, then each rank picks its group), and MPI_Comm_compare.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/comm.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"

using namespace torus::mpi;

extern "C" {

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_split");
  if (color < 0 && color != MPI_UNDEFINED) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_split");
  int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(c->size));
  torus::Status s = coll::allgather(*c, mine, all.data(), sizeof(mine));
  if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Comm_split");
  // One context id for every group: the groups are disjoint, so no process can receive a
  // message of another group's communicator.
  uint32_t context_id = 0;
  if (int e = comm_agree_context(*c, &context_id)) return raise_error(c, e, "MPI_Comm_split");
  if (color == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Members of my color ordered by key, ties by rank in the parent.
  std::vector<std::pair<int, int>> members;  // (key, parent rank)
  for (int r = 0; r < c->size; ++r)
    if (all[2 * size_t(r)] == color) members.emplace_back(all[2 * size_t(r) + 1], r);
  std::sort(members.begin(), members.end());
  auto split = std::make_unique<Comm>();
  split->context_id = context_id;
  split->size = static_cast<int>(members.size());
  split->errhandler = c->errhandler;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i].second == c->rank) split->rank = static_cast<int>(i);
    split->world_ranks.push_back(c->world_ranks[size_t(members[i].second)]);
  }
  return check(c, comm_install(std::move(split), newcomm), "MPI_Comm_split");
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  Comm* a = comm_get(comm1);
  Comm* b = comm_get(comm2);
  if (!a || !b) return raise_error(a ? a : b, MPI_ERR_COMM, "MPI_Comm_compare");
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a->world_ranks == b->world_ranks) {
    *result = MPI_CONGRUENT;
  } else {
    std::vector<int> sa = a->world_ranks, sb = b->world_ranks;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    *result = sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_split)
TORUS_MPI_ALIAS(MPI_Comm_compare)

}  // extern "C"
