// Intercommunicators: MPI_Intercomm_create, Intercomm_merge, Comm_remote_size/remote_group,
// and the duplicate and split of an intercommunicator (MPI_Comm_dup, Comm_split and
// Comm_create come here for one).
//
// An intercommunicator needs a context id free at every process of both groups: each group
// ANDs its members' bitmaps (an allreduce inside the group), the two leaders swap their
// groups' results and AND them, and each leader broadcasts the outcome to its group, so both
// groups take the same lowest pair (context_id_agree's windows, one swap per window). The
// local group also gets an intracommunicator of its own, its id agreed inside the group,
// which carries the collectives' messages within the group.
//
// Whatever the leader alone learns (an argument only it checks, a failed swap) travels with
// its broadcast, so the whole group fails together instead of waiting for a leader that
// gave up.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_set>
#include <vector>

#include "mpi_shim/lib/coll/algo/context.h"
#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;
using torus::Status;

namespace {

// The leader's two-way exchange with the other group's leader: `bytes` out of `mine`, as
// many into `theirs`.
using LeaderSwap = std::function<Status(const void* mine, void* theirs, size_t bytes)>;

// Broadcasts `bytes` of `buf` from `leader` over the local group together with the leader's
// outcome `leader_status`; every member returns that outcome (or the broadcast's failure).
Status leader_bcast(Comm& local, int leader, Status leader_status, void* buf, size_t bytes) {
  std::vector<std::byte> msg(bytes + 1);
  if (local.rank == leader) {
    if (bytes) std::memcpy(msg.data(), buf, bytes);
    msg[bytes] = static_cast<std::byte>(static_cast<int8_t>(leader_status));
  }
  Status s = coll::bcast(local, msg.data(), msg.size(), leader);
  if (is_error(s)) return s;
  if (local.rank != leader && bytes) std::memcpy(buf, msg.data(), bytes);
  return static_cast<Status>(static_cast<int8_t>(msg[bytes]));
}

int inter_context_agree(Comm& local, int leader, const LeaderSwap& swap, uint32_t* context_id) {
  return context_id_agree(
      [&](const uint32_t* mine, uint32_t* common, size_t words) {
        Status s = coll::allreduce(local, mine, common, words, MPI_UNSIGNED, MPI_BAND);
        if (is_error(s)) return s;
        Status swapped = Status::Ok;
        if (local.rank == leader) {
          std::vector<uint32_t> theirs(words);
          swapped = swap(common, theirs.data(), words * sizeof(uint32_t));
          for (size_t i = 0; i < words; ++i) common[i] &= theirs[i];
        }
        return leader_bcast(local, leader, swapped, common, words * sizeof(uint32_t));
      },
      true, context_id);
}

// The local group's own intracommunicator: `like`'s ranks under context id `id`.
std::shared_ptr<Comm> local_group(const Comm& like, uint32_t id) {
  auto l = std::make_shared<Comm>();
  l->context_id = id;
  l->rank = like.rank;
  l->size = like.size;
  l->world_ranks = like.world_ranks;
  return l;
}

// A swap between the intercommunicator's leaders on its collective context, one phase per
// call (context_id_agree's windows), all under the one sequence number of `cc`.
LeaderSwap swap_over(const coll::CollContext& cc, int* phase) {
  return [&cc, phase](const void* mine, void* theirs, size_t bytes) {
    return cc.sendrecv(0, mine, bytes, 0, theirs, bytes, (*phase)++);
  };
}

// Both halves of an agreement for a new intercommunicator over `local_comm`'s group:
// *local_id for the local group, *inter_id for both groups. On failure nothing is held.
int agree_both(Comm& local_comm, int leader, const LeaderSwap& swap, uint32_t* local_id,
               uint32_t* inter_id) {
  if (int e = comm_agree_context(local_comm, local_id)) return e;
  int e = inter_context_agree(local_comm, leader, swap, inter_id);
  if (e) context_id_release(*local_id);
  return e;
}

int install_inter(std::unique_ptr<Comm> c, uint32_t local_id, uint32_t inter_id,
                  MPI_Comm* newcomm) {
  c->context_id = inter_id;
  c->local = local_group(*c, local_id);
  int e = comm_install(std::move(c), newcomm);
  if (e) {
    context_id_release(inter_id);
    context_id_release(local_id);
    *newcomm = MPI_COMM_NULL;
  }
  return e;
}

bool overlap(const std::vector<int>& a, const std::vector<int>& b) {
  const std::unordered_set<int> in_a(a.begin(), a.end());
  return std::any_of(b.begin(), b.end(), [&](int w) { return in_a.contains(w); });
}

// The leader's part of Intercomm_create's first step: the remote group's world ranks,
// through the peer communicator with the user's tag (sizes first, then the ranks).
Status swap_groups(const Comm& peer, int remote_leader, int tag, const std::vector<int>& mine,
                   std::vector<int>* theirs) {
  const uint32_t ctx = peer.context_id;
  int n = static_cast<int>(mine.size()), remote_n = 0;
  Status s = sendrecv_blocking(peer, ctx, &n, sizeof n, remote_leader, tag, &remote_n,
                               sizeof remote_n, remote_leader, tag);
  if (is_error(s)) return s;
  if (remote_n <= 0 || remote_n > kMaxRanks) return Status::ProtocolError;
  theirs->resize(static_cast<size_t>(remote_n));
  return sendrecv_blocking(peer, ctx, mine.data(), mine.size() * sizeof(int), remote_leader, tag,
                           theirs->data(), theirs->size() * sizeof(int), remote_leader, tag);
}

}  // namespace

namespace torus::mpi {

int intercomm_dup(Comm& c, MPI_Comm* newcomm) {
  coll::CollContext cc(c);  // every member takes the call's one sequence number
  int phase = 0;
  uint32_t local_id = 0, inter_id = 0;
  if (int e = agree_both(*c.local, 0, swap_over(cc, &phase), &local_id, &inter_id)) return e;
  int e = MPI_SUCCESS;
  std::unique_ptr<Comm> copy = comm_duplicate(c, &e);
  if (!copy) {
    context_id_release(inter_id);
    context_id_release(local_id);
    return e;
  }
  return intercomm_install_duplicate(std::move(copy), c, local_id, inter_id, newcomm);
}

int intercomm_from_groups(Comm& local, int local_leader, std::vector<int> remote,
                          int remote_leader, uint32_t ctx, uint32_t call,
                          MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  // WORLD's view addresses the other leader by world rank; one phase per window.
  const Comm& world = *comm_get(MPI_COMM_WORLD);
  int phase = 0;
  LeaderSwap swap = [&](const void* mine, void* theirs, size_t bytes) {
    const int tag = coll_tag(call, phase++);
    return sendrecv_blocking(world, ctx, mine, bytes, remote_leader, tag, theirs, bytes,
                             remote_leader, tag);
  };
  uint32_t local_id = 0, inter_id = 0;
  if (int e = agree_both(local, local_leader, swap, &local_id, &inter_id)) return e;
  auto c = std::make_unique<Comm>();
  c->rank = local.rank;
  c->size = local.size;
  c->world_ranks = local.world_ranks;
  c->remote_world_ranks = std::move(remote);
  c->errhandler = errhandler;
  return install_inter(std::move(c), local_id, inter_id, newcomm);
}

int intercomm_install_duplicate(std::unique_ptr<Comm> copy, const Comm& of, uint32_t local_id,
                                uint32_t inter_id, MPI_Comm* newcomm) {
  copy->remote_world_ranks = of.remote_world_ranks;
  return install_inter(std::move(copy), local_id, inter_id, newcomm);
}

int intercomm_split(Comm& c, int color, int key, MPI_Comm* newcomm) {
  *newcomm = MPI_COMM_NULL;
  coll::CollContext cc(c);
  int phase = 0;
  // Both groups' (color, key) tables: gathered in each group, swapped by the leaders.
  const int mine[2] = {color, key};
  std::vector<int> local_table(2 * size_t(c.size)), remote_table(2 * size_t(c.remote_size()));
  Status s = coll::allgather(*c.local, mine, local_table.data(), sizeof mine);
  if (is_error(s)) return error_from_status(s);
  if (c.rank == 0)
    s = cc.sendrecv(0, local_table.data(), local_table.size() * sizeof(int), 0,
                    remote_table.data(), remote_table.size() * sizeof(int), phase);
  ++phase;
  s = leader_bcast(*c.local, 0, s, remote_table.data(), remote_table.size() * sizeof(int));
  if (is_error(s)) return error_from_status(s);
  // One pair of ids for every new intercommunicator: their memberships are disjoint.
  uint32_t local_id = 0, inter_id = 0;
  if (int e = agree_both(*c.local, 0, swap_over(cc, &phase), &local_id, &inter_id)) return e;
  auto split = [color](const std::vector<int>& table, const std::vector<int>& world) {
    std::vector<int> colors, keys;
    for (size_t r = 0; r < world.size(); ++r) {
      colors.push_back(table[2 * r]);
      keys.push_back(table[2 * r + 1]);
    }
    return comm_split_members(world, colors, keys, color);
  };
  std::vector<int> local, remote;
  if (color != MPI_UNDEFINED) {
    local = split(local_table, c.world_ranks);
    remote = split(remote_table, c.remote_world_ranks);
  }
  if (remote.empty()) {  // no color, or nobody of it on the other side
    context_id_release(inter_id);
    context_id_release(local_id);
    return MPI_SUCCESS;
  }
  const int me = c.world_ranks[size_t(c.rank)];
  auto n = std::make_unique<Comm>();
  n->rank = static_cast<int>(std::find(local.begin(), local.end(), me) - local.begin());
  n->size = static_cast<int>(local.size());
  n->world_ranks = std::move(local);
  n->remote_world_ranks = std::move(remote);
  n->errhandler = c.errhandler;
  return install_inter(std::move(n), local_id, inter_id, newcomm);
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm* newintercomm) {
  constexpr const char* fn = "MPI_Intercomm_create";
  Comm* lc = comm_get_intra(local_comm);
  if (!lc) return raise_error(comm_get(local_comm), MPI_ERR_COMM, fn);
  if (local_leader < 0 || local_leader >= lc->size) return raise_error(lc, MPI_ERR_RANK, fn);
  if (tag < 0 || tag > kTagUb) return raise_error(lc, MPI_ERR_TAG, fn);
  if (!newintercomm) return raise_error(lc, MPI_ERR_ARG, fn);
  *newintercomm = MPI_COMM_NULL;

  // The leader alone looks at the peer communicator (significant only there).
  std::vector<int> remote;
  Status s = Status::Ok;
  int err = MPI_SUCCESS;
  if (lc->rank == local_leader) {
    Comm* pc = comm_get(peer_comm);
    if (!pc) err = MPI_ERR_COMM;
    else if (remote_leader < 0 || remote_leader >= pc->remote_size()) err = MPI_ERR_RANK;
    else s = swap_groups(*pc, remote_leader, tag, lc->world_ranks, &remote);
    if (err) s = Status::InvalidParam;
  }
  int remote_n = static_cast<int>(remote.size());
  Status b = leader_bcast(*lc, local_leader, s, &remote_n, sizeof remote_n);
  if (is_error(b)) {
    if (lc->rank == local_leader && err) return raise_error(lc, err, fn);
    return raise_error(lc, error_from_status(b), fn);
  }
  remote.resize(static_cast<size_t>(remote_n));
  b = coll::bcast(*lc, remote.data(), remote.size() * sizeof(int), local_leader);
  if (is_error(b)) return raise_error(lc, error_from_status(b), fn);
  // Both groups see both lists, so both refuse groups that share a process.
  if (overlap(lc->world_ranks, remote)) return raise_error(lc, MPI_ERR_COMM, fn);

  const int leader_peer = remote_leader;
  Comm* pc = lc->rank == local_leader ? comm_get(peer_comm) : nullptr;
  LeaderSwap swap = [pc, leader_peer, tag](const void* mine, void* theirs, size_t bytes) {
    return sendrecv_blocking(*pc, pc->context_id, mine, bytes, leader_peer, tag, theirs, bytes,
                             leader_peer, tag);
  };
  uint32_t local_id = 0, inter_id = 0;
  if (int e = agree_both(*lc, local_leader, swap, &local_id, &inter_id))
    return raise_error(lc, e, fn);
  auto c = std::make_unique<Comm>();
  c->rank = lc->rank;
  c->size = lc->size;
  c->world_ranks = lc->world_ranks;
  c->remote_world_ranks = std::move(remote);
  c->errhandler = lc->errhandler;
  return check(lc, install_inter(std::move(c), local_id, inter_id, newintercomm), fn);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  constexpr const char* fn = "MPI_Intercomm_merge";
  Comm* c = comm_get(intercomm);
  if (!c || !c->inter()) return raise_error(c, MPI_ERR_COMM, fn);
  if (!newintracomm) return raise_error(c, MPI_ERR_ARG, fn);
  *newintracomm = MPI_COMM_NULL;
  coll::CollContext cc(*c);
  int phase = 1;
  // The leaders swap their groups' `high` (the leader's stands for its group).
  int flags[2] = {high ? 1 : 0, 0};
  Status s = Status::Ok;
  if (c->rank == 0) s = cc.sendrecv(0, &flags[0], sizeof(int), 0, &flags[1], sizeof(int), 0);
  s = leader_bcast(*c->local, 0, s, flags, sizeof flags);
  if (is_error(s)) return raise_error(c, error_from_status(s), fn);
  // The group that asked for low goes first; where both asked the same, the group whose
  // leader has the lower rank in MPI_COMM_WORLD (both groups decide alike).
  const bool local_first = flags[0] != flags[1] ? flags[0] == 0
                                                : c->world_ranks[0] < c->remote_world_ranks[0];
  uint32_t context_id = 0;
  if (int e = inter_context_agree(*c->local, 0, swap_over(cc, &phase), &context_id))
    return raise_error(c, e, fn);
  auto m = std::make_unique<Comm>();
  const std::vector<int>& first = local_first ? c->world_ranks : c->remote_world_ranks;
  const std::vector<int>& second = local_first ? c->remote_world_ranks : c->world_ranks;
  m->world_ranks = first;
  m->world_ranks.insert(m->world_ranks.end(), second.begin(), second.end());
  m->size = static_cast<int>(m->world_ranks.size());
  m->rank = local_first ? c->rank : static_cast<int>(first.size()) + c->rank;
  m->errhandler = c->errhandler;
  m->context_id = context_id;
  int e = comm_install(std::move(m), newintracomm);
  if (e) context_id_release(context_id);
  return check(c, e, fn);
}

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  Comm* c = comm_get(comm);
  if (!c || !c->inter()) return raise_error(c, MPI_ERR_COMM, "MPI_Comm_remote_size");
  if (!size) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_remote_size");
  *size = c->remote_size();
  return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  Comm* c = comm_get(comm);
  if (!c || !c->inter()) return raise_error(c, MPI_ERR_COMM, "MPI_Comm_remote_group");
  if (!group) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_remote_group");
  return check(c, group_install(c->remote_world_ranks, group), "MPI_Comm_remote_group");
}

TORUS_MPI_ALIAS(MPI_Intercomm_create)
TORUS_MPI_ALIAS(MPI_Intercomm_merge)
TORUS_MPI_ALIAS(MPI_Comm_remote_size)
TORUS_MPI_ALIAS(MPI_Comm_remote_group)

}  // extern "C"
