// Communicators made from another by color: MPI_Comm_split (an allgather of every member's
// color and key, then each rank picks its group; one context id for all the groups; an
// intercommunicator's split is inter.cpp's), and MPI_Comm_compare.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {

std::vector<int> comm_split_members(std::span<const int> parent_world_ranks,
                                    std::span<const int> colors, std::span<const int> keys,
                                    int color) {
  std::vector<std::pair<int, int>> members;  // (key, parent rank): ties go by parent rank
  for (size_t r = 0; r < parent_world_ranks.size(); ++r)
    if (colors[r] == color) members.emplace_back(keys[r], static_cast<int>(r));
  std::sort(members.begin(), members.end());
  std::vector<int> world_ranks;
  for (auto& m : members) world_ranks.push_back(parent_world_ranks[size_t(m.second)]);
  return world_ranks;
}

std::vector<int> comm_split_members(const Comm& parent, std::span<const int> colors,
                                    std::span<const int> keys, int color) {
  return comm_split_members(parent.world_ranks, colors, keys, color);
}

}  // namespace torus::mpi

using namespace torus::mpi;

extern "C" {

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_split");
  if (color < 0 && color != MPI_UNDEFINED) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_split");
  if (!newcomm) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_split");
  if (c->inter()) return check(c, intercomm_split(*c, color, key, newcomm), "MPI_Comm_split");
  int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(c->size));
  torus::Status s = coll::allgather(*c, mine, all.data(), sizeof(mine));
  if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Comm_split");
  std::vector<int> colors, keys;
  for (int r = 0; r < c->size; ++r) {
    colors.push_back(all[2 * size_t(r)]);
    keys.push_back(all[2 * size_t(r) + 1]);
  }
  std::vector<int> members;
  if (color != MPI_UNDEFINED) members = comm_split_members(*c, colors, keys, color);
  return check(c, comm_create_from(*c, color == MPI_UNDEFINED ? nullptr : &members, newcomm),
               "MPI_Comm_split");
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  Comm* a = comm_get(comm1);
  Comm* b = comm_get(comm2);
  if (!a || !b) return raise_error(a ? a : b, MPI_ERR_COMM, "MPI_Comm_compare");
  // Intercommunicators compare both groups, each the way an intracommunicator's one is.
  auto sorted = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a->inter() != b->inter()) {
    *result = MPI_UNEQUAL;
  } else if (a->world_ranks == b->world_ranks &&
             a->remote_world_ranks == b->remote_world_ranks) {
    *result = MPI_CONGRUENT;
  } else {
    const bool same = sorted(a->world_ranks) == sorted(b->world_ranks) &&
                      sorted(a->remote_world_ranks) == sorted(b->remote_world_ranks);
    *result = same ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_split)
TORUS_MPI_ALIAS(MPI_Comm_compare)

}  // extern "C"
