// Communicators from groups alone (MPI 4.0, for sessions): MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups. No parent communicator carries the agreement on a context
// id, so the members agree among themselves as MPI_Comm_create_group's do (group_band), on a
// context id reserved for these calls. The string tag names the call: its hash makes the
// messages' tags, so calls with different tags may run at once on overlapping groups (two
// tags whose 21-bit hashes collide would share tags; the standard asks tags to be unique
// among concurrent calls, and the chance that two are and still collide is 2^-21).
#include <cstring>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;

namespace {

constexpr int kHashBits = 21;  // with one bit for the step, a 22-bit call of coll_tag

// The call number of step `step` (0: the group's own agreement, 1: the leaders' swap).
uint32_t call_of(std::string_view tag, uint32_t step) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (char c : tag) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  const uint32_t folded = static_cast<uint32_t>(h ^ (h >> kHashBits) ^ (h >> 2 * kHashBits));
  return ((folded & ((1u << kHashBits) - 1)) << 1) | step;
}

// A context id free at every member of `members` (this process at index `rank`).
int agree_in_group(const std::vector<int>& members, int rank, uint32_t call, uint32_t* id) {
  return context_id_agree(
      [&](const uint32_t* mine, uint32_t* common, size_t words) {
        return group_band(context_id_session_agreement(), members, rank, call, mine, common,
                          words);
      },
      true, id);
}

// Checks shared by both calls: the tag, the handler, and the library being up.
int check_common(const char* stringtag, MPI_Errhandler errhandler, const void* out) {
  if (!runtime()) return MPI_ERR_OTHER;
  if (!stringtag || std::strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN) return MPI_ERR_ARG;
  if (!errhandler_settable(errhandler) || !out) return MPI_ERR_ARG;
  return MPI_SUCCESS;
}

ErrorScope scope_of(MPI_Errhandler errhandler) {
  ErrorScope scope;
  if (errhandler_settable(errhandler)) scope.handler = errhandler;
  return scope;
}

}  // namespace

extern "C" {

int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info /*info*/,
                                MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  constexpr const char* fn = "MPI_Comm_create_from_group";
  const ErrorScope scope = scope_of(errhandler);
  if (int e = check_common(stringtag, errhandler, newcomm)) return raise_in_scope(scope, e, fn);
  *newcomm = MPI_COMM_NULL;
  auto g = group_get(group);
  if (!g) return raise_in_scope(scope, MPI_ERR_GROUP, fn);
  // Only members call it; the group's rank order is the communicator's.
  const int rank = group_rank_of(*g, runtime()->world_rank);
  if (rank == MPI_UNDEFINED) return raise_in_scope(scope, MPI_ERR_GROUP, fn);
  uint32_t context_id = 0;
  if (int e = agree_in_group(g->world_ranks, rank, call_of(stringtag, 0), &context_id))
    return raise_in_scope(scope, e, fn);
  auto created = std::make_unique<Comm>();
  created->context_id = context_id;
  created->rank = rank;
  created->size = static_cast<int>(g->world_ranks.size());
  created->world_ranks = g->world_ranks;
  created->errhandler = errhandler;
  const int e = comm_install(std::move(created), newcomm);
  if (e != MPI_SUCCESS) {
    context_id_release(context_id);
    return raise_in_scope(scope, e, fn);
  }
  return MPI_SUCCESS;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char* stringtag, MPI_Info /*info*/,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  constexpr const char* fn = "MPI_Intercomm_create_from_groups";
  const ErrorScope scope = scope_of(errhandler);
  if (int e = check_common(stringtag, errhandler, newintercomm))
    return raise_in_scope(scope, e, fn);
  *newintercomm = MPI_COMM_NULL;
  auto local = group_get(local_group);
  auto remote = group_get(remote_group);
  if (!local || !remote || remote->world_ranks.empty())
    return raise_in_scope(scope, MPI_ERR_GROUP, fn);
  const int rank = group_rank_of(*local, runtime()->world_rank);
  if (rank == MPI_UNDEFINED) return raise_in_scope(scope, MPI_ERR_GROUP, fn);
  const std::unordered_set<int> in_local(local->world_ranks.begin(), local->world_ranks.end());
  for (int w : remote->world_ranks)
    if (in_local.contains(w)) return raise_in_scope(scope, MPI_ERR_GROUP, fn);
  const int n_local = static_cast<int>(local->world_ranks.size());
  const int n_remote = static_cast<int>(remote->world_ranks.size());
  if (local_leader < 0 || local_leader >= n_local || remote_leader < 0 ||
      remote_leader >= n_remote)
    return raise_in_scope(scope, MPI_ERR_RANK, fn);

  // The local group's own intracommunicator carries the group's half of the agreement; the
  // two groups are disjoint, so both run this step under the same call number.
  uint32_t group_id = 0;
  if (int e = agree_in_group(local->world_ranks, rank, call_of(stringtag, 0), &group_id))
    return raise_in_scope(scope, e, fn);
  Comm group_comm;
  group_comm.context_id = group_id;
  group_comm.rank = rank;
  group_comm.size = n_local;
  group_comm.world_ranks = local->world_ranks;
  const int e = intercomm_from_groups(
      group_comm, local_leader, remote->world_ranks,
      remote->world_ranks[static_cast<size_t>(remote_leader)], context_id_session_agreement(),
      call_of(stringtag, 1), errhandler, newintercomm);
  context_id_release(group_id);
  return e == MPI_SUCCESS ? MPI_SUCCESS : raise_in_scope(scope, e, fn);
}

TORUS_MPI_ALIAS(MPI_Comm_create_from_group)
TORUS_MPI_ALIAS(MPI_Intercomm_create_from_groups)

}  // extern "C"
