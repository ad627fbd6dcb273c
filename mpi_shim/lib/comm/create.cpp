// Communicators from groups: MPI_Comm_create (collective over the parent; disjoint groups in
// one call each get a communicator, sharing one context id) and MPI_Comm_create_group
// (collective over the group's members only).
//
// Comm_create_group's members agree on a context id among themselves: an allreduce over
// the group on a context id reserved for these agreements, its messages addressed by world
// rank. The tag names the call, (parent's id pair, user tag mod 128), so concurrent calls
// that the standard tells apart by parent or tag do not mix; calls that follow one another
// with the same parent and tag are kept apart by message order between each pair of
// processes (which a source field holding a group rank could not promise, since one process
// has different group ranks in different calls).
#include <algorithm>
#include <memory>
#include <span>
#include <unordered_set>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

constexpr int kCallTagBits = 7;  // of the user's tag: with the 15-bit pair, 22 bits of call
constexpr int kLastPhase = (1 << kPhaseBits) - 1;

}  // namespace

// Recursive doubling; with n not a power of two, the first 2 * (n - 2^k) ranks fold in pairs
// first and the odd one of each pair hands the result back at the end.
torus::Status torus::mpi::group_band(uint32_t ctx, std::span<const int> members, int me,
                                     uint32_t call, const uint32_t* mine, uint32_t* common,
                                     size_t words) {
  // WORLD's view addresses peers by world rank and puts ours in the source field.
  const Comm& world = *comm_get(MPI_COMM_WORLD);
  const size_t bytes = words * sizeof(uint32_t);
  std::vector<uint32_t> in(words);
  std::copy(mine, mine + words, common);
  auto tag = [call](int phase) { return coll_tag(call, phase); };
  auto peer = [&](int index) { return members[static_cast<size_t>(index)]; };
  auto fold_in = [&] {
    for (size_t i = 0; i < words; ++i) common[i] &= in[i];
  };
  const int n = static_cast<int>(members.size());
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  int vrank;  // rank among the pof2 that run the doubling, or -1
  if (me < 2 * rem) {
    if (me % 2 == 0) {
      torus::Status s = send_blocking(world, ctx, common, bytes, peer(me + 1), tag(0));
      if (torus::is_error(s)) return s;
      vrank = -1;
    } else {
      torus::Status s = recv_blocking(world, ctx, in.data(), bytes, peer(me - 1), tag(0));
      if (torus::is_error(s)) return s;
      fold_in();
      vrank = me / 2;
    }
  } else {
    vrank = me - rem;
  }
  if (vrank >= 0) {
    int phase = 1;
    for (int mask = 1; mask < pof2; mask <<= 1, ++phase) {
      const int vpartner = vrank ^ mask;
      const int partner = vpartner < rem ? vpartner * 2 + 1 : vpartner + rem;
      torus::Status s = sendrecv_blocking(world, ctx, common, bytes, peer(partner), tag(phase),
                                          in.data(), bytes, peer(partner), tag(phase));
      if (torus::is_error(s)) return s;
      fold_in();
    }
  }
  if (me < 2 * rem) {
    return me % 2 == 0
               ? recv_blocking(world, ctx, common, bytes, peer(me + 1), tag(kLastPhase))
               : send_blocking(world, ctx, common, bytes, peer(me - 1), tag(kLastPhase));
  }
  return torus::Status::Ok;
}

namespace {

// The group behind `group` when it is valid and all its members belong to `parent`.
std::shared_ptr<const Group> subgroup_of(const Comm& parent, MPI_Group group) {
  auto g = group_get(group);
  if (!g) return nullptr;
  const std::unordered_set<int> in_parent(parent.world_ranks.begin(), parent.world_ranks.end());
  for (int w : g->world_ranks)
    if (!in_parent.contains(w)) return nullptr;
  return g;
}

}  // namespace

extern "C" {

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_create");
  auto g = subgroup_of(*c, group);
  if (!g) return raise_error(c, MPI_ERR_GROUP, "MPI_Comm_create");
  if (!newcomm) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_create");
  const int me = c->world_ranks[static_cast<size_t>(c->rank)];
  if (c->inter()) {  // the group is a subgroup of the local one; each side names its own
    const int grank = group_rank_of(*g, me);
    const int color = grank == MPI_UNDEFINED ? MPI_UNDEFINED : 0;
    return check(c, intercomm_split(*c, color, grank, newcomm), "MPI_Comm_create");
  }
  std::vector<int> members = g->world_ranks;
  const bool member = group_rank_of(*g, me) != MPI_UNDEFINED;
  return check(c, comm_create_from(*c, member ? &members : nullptr, newcomm), "MPI_Comm_create");
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  Comm* c = comm_get_intra(comm);
  if (!c) return raise_error(comm_get(comm), MPI_ERR_COMM, "MPI_Comm_create_group");
  auto g = subgroup_of(*c, group);
  if (!g) return raise_error(c, MPI_ERR_GROUP, "MPI_Comm_create_group");
  if (tag < 0 || tag > kTagUb) return raise_error(c, MPI_ERR_TAG, "MPI_Comm_create_group");
  if (!newcomm) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_create_group");
  const int rank = group_rank_of(*g, c->world_ranks[static_cast<size_t>(c->rank)]);
  if (rank == MPI_UNDEFINED) {  // only members call it; a non-member gets no communicator
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const uint32_t call =
      ((c->context_id / 2) << kCallTagBits) | (uint32_t(tag) & ((1u << kCallTagBits) - 1));
  const std::vector<int>& members = g->world_ranks;
  uint32_t context_id = 0;
  int e = context_id_agree(
      [&](const uint32_t* mine, uint32_t* common, size_t words) {
        return group_band(context_id_group_agreement(), members, rank, call, mine, common, words);
      },
      true, &context_id);
  if (e != MPI_SUCCESS) return raise_error(c, e, "MPI_Comm_create_group");
  auto created = std::make_unique<Comm>();
  created->context_id = context_id;
  created->rank = rank;
  created->size = static_cast<int>(members.size());
  created->world_ranks = members;
  created->errhandler = c->errhandler;
  e = comm_install(std::move(created), newcomm);
  if (e != MPI_SUCCESS) context_id_release(context_id);
  return check(c, e, "MPI_Comm_create_group");
}

TORUS_MPI_ALIAS(MPI_Comm_create)
TORUS_MPI_ALIAS(MPI_Comm_create_group)

}  // extern "C"
