// Communicators: a table of handles (MPI_COMM_WORLD, MPI_COMM_SELF, duplicates), each with
// its ranks, context ids, error handler, attributes and name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "mpi_shim/include/mpi.h"

namespace torus::mpi {

struct CartTopology {
  std::vector<int> dims;
  std::vector<bool> periods;
};

// MPI_Graph_create's graph, the same on every member: node i's neighbors are
// edges[index[i-1] .. index[i]) (index[-1] = 0).
struct GraphTopology {
  std::vector<int> index;
  std::vector<int> edges;
};

// A distributed graph (MPI_Dist_graph_create(_adjacent)): this rank's own edges only, in the
// order the neighbor collectives use; weights are 1 where the graph is unweighted.
struct DistGraphTopology {
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  uint32_t context_id = 0;  // even: point-to-point; context_id + 1: collectives
  int rank = 0;
  int size = 1;
  std::vector<int> world_ranks;  // comm rank -> world rank
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  uint32_t coll_seq = 0;  // collectives started on this communicator (same on every rank)
  uint32_t coll_context() const { return context_id + 1; }
  // The ranks' last agreement on whether messages of `bytes` to the recursive-doubling
  // partners go by rendezvous (coll/algo/placement.cpp), good for `calls_left` more asks.
  struct RndvAgreement {
    uint32_t calls_left = 0;
    size_t bytes = 0;
    bool value = false;
  };
  RndvAgreement rndv_agreed;

  // An intercommunicator (inter.cpp): rank, size and world_ranks describe the local
  // group, while point-to-point peers and the inter-group messages of its collectives name
  // ranks of the remote group. `local` is the local group's own intracommunicator, with a
  // context id of its own, which the intercommunicator's collectives use inside the group.
  std::vector<int> remote_world_ranks;
  std::shared_ptr<Comm> local;
  bool inter() const { return local != nullptr; }
  // Ranks that a point-to-point peer argument may name.
  int remote_size() const { return inter() ? static_cast<int>(remote_world_ranks.size()) : size; }
  int peer_world(int peer) const {
    return (inter() ? remote_world_ranks : world_ranks)[static_cast<size_t>(peer)];
  }

  // Scratch memory for collectives, kept between calls: a fresh buffer per call would cost
  // page faults and a memory registration for every large message. Collectives on one
  // communicator never run concurrently (the standard's rule), so one buffer suffices.
  std::span<std::byte> scratch(size_t bytes) {
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    return {scratch_.data(), bytes};
  }

  // User attributes (keyval, value) in the order they were set; guarded by the keyval
  // table's lock (attr.cpp).
  std::vector<std::pair<int, void*>> attrs;
  std::string name;  // MPI_Comm_set_name; empty unless set (WORLD and SELF have theirs)
  // The topology, at most one of them set (topo/*.cpp). Immutable once set, so duplicates
  // share it.
  std::shared_ptr<const CartTopology> cart;
  std::shared_ptr<const GraphTopology> graph;
  std::shared_ptr<const DistGraphTopology> dist_graph;

 private:
  std::vector<std::byte> scratch_;
};

// Creates WORLD and SELF; called by runtime_start.
void comms_init(int world_rank, int world_size);
// Frees every communicator; called by runtime_stop.
void comms_clear();
// The communicator behind a handle, or nullptr for an invalid one.
Comm* comm_get(MPI_Comm handle) noexcept;
// The same for calls defined on intracommunicators only (topologies, windows, scans,
// nonblocking and neighborhood collectives): nullptr for an intercommunicator too, so that
// it gets MPI_ERR_COMM.
Comm* comm_get_intra(MPI_Comm handle) noexcept;
// Collective over `parent`: a context id that no member uses (context_ids.cpp); every
// member takes it. Returns an MPI error code.
int comm_agree_context(Comm& parent, uint32_t* context_id);
// Gives `c` a handle and takes it over (MPI_ERR_INTERN when the table is full: `c` is left
// to the caller then).
int comm_install(std::unique_ptr<Comm>&& c, MPI_Comm* handle);
// MPI_Comm_dup's halves (comm.cpp), also used by MPI_Comm_idup: a copy of `c` (ranks, error
// handler, topology, attributes through their copy callbacks) without a context id, or
// nullptr with *err set when a callback failed; then the copy with its agreed context id
// installed (on failure the copy's attributes are deleted, the id given back and *newcomm
// set to MPI_COMM_NULL). Both return or set MPI error codes.
std::unique_ptr<Comm> comm_duplicate(Comm& c, int* err);
// MPI_Comm_dup of an intercommunicator (inter.cpp): collective over both groups; an MPI
// error code.
int intercomm_dup(Comm& c, MPI_Comm* newcomm);
// The end of an intercommunicator's duplicate (intercomm_dup, MPI_Comm_idup): a copy from
// comm_duplicate with the agreed ids installed; on failure both ids are given back and
// *newcomm is MPI_COMM_NULL. An MPI error code.
int intercomm_install_duplicate(std::unique_ptr<Comm> copy, const Comm& of, uint32_t local_id,
                                uint32_t inter_id, MPI_Comm* newcomm);
// MPI_Comm_idup of an intercommunicator (idup_inter.cpp): the request, or an MPI error
// code raised through `c`.
int intercomm_idup(Comm& c, MPI_Comm* newcomm, MPI_Request* request);
// MPI_Comm_split of an intercommunicator (inter.cpp; MPI_Comm_create's too, with color 0
// for the group's members, MPI_UNDEFINED for the rest, and the group rank as key): each new
// intercommunicator joins the local and the remote processes of one color, in key order;
// MPI_COMM_NULL where either side has none. Collective over both groups; an MPI error code.
int intercomm_split(Comm& c, int color, int key, MPI_Comm* newcomm);
// An intercommunicator from `local` (this process's group) to the world ranks `remote`. The
// leaders (local rank `local_leader`; world rank `remote_leader`) agree on its context ids by
// messages on context `ctx` tagged from `call` (MPI_Intercomm_create_from_groups). The new
// communicator gets `errhandler`.
int intercomm_from_groups(Comm& local, int local_leader, std::vector<int> remote,
                          int remote_leader, uint32_t ctx, uint32_t call,
                          MPI_Errhandler errhandler, MPI_Comm* newcomm);
int comm_install_duplicate(std::unique_ptr<Comm> copy, uint32_t context_id, MPI_Comm* newcomm);
// Collective over `parent`: one context id for every communicator made from it in this call
// (their member sets must be disjoint). A member passes the new communicator's world ranks
// in rank order and gets its handle; others pass nullptr and get MPI_COMM_NULL.
int comm_create_from(Comm& parent, std::vector<int>* members, MPI_Comm* newcomm);
// The world ranks, ordered by key (ties by parent rank), of the parent's ranks whose entry in
// `colors` is `color` (split.cpp; colors and keys have one entry per parent rank).
std::vector<int> comm_split_members(const Comm& parent, std::span<const int> colors,
                                    std::span<const int> keys, int color);
// The same over any list of world ranks (an intercommunicator's remote group).
std::vector<int> comm_split_members(std::span<const int> parent_world_ranks,
                                    std::span<const int> colors, std::span<const int> keys,
                                    int color);

// Context ids (context_ids.cpp): a bitmap per process of the free id pairs; an
// agreement takes the lowest pair free at every member, found by an allreduce-BAND of the
// bitmaps (as MPICH's context-id mask), and Comm_free gives it back.
//
// The BAND of every member's `mine` (`words` words) into `common`: a collective among the
// communicator's members, whatever carries it.
using BandAllreduce =
    std::function<Status(const uint32_t* mine, uint32_t* common, size_t words)>;
// Collective (through `band`): members with take=true contribute their bitmap and take the
// id; those with take=false constrain nothing and keep it free (an MPI_UNDEFINED color, a
// non-member of MPI_Comm_create).
int context_id_agree(const BandAllreduce& band, bool take, uint32_t* context_id);
// The two halves of one window of an agreement, for one carried by a nonblocking
// collective (MPI_Comm_idup). One allreduce agrees on a window of 2048 pairs: small enough
// to cost little more than an allreduce of one word, and a process rarely holds so many
// communicators that the first window has nothing free. offer() fills `mine`
// (kContextWindowWords words) and holds those pairs back from other agreements of this
// process until conclude(), which takes the lowest pair of the BAND `common` (band_error:
// how the BAND went, an MPI code). conclude() returns MPI_SUCCESS with *context_id set,
// kContextNextWindow to go on with window + 1, or an MPI error code.
inline constexpr size_t kContextWindowWords = 64;
inline constexpr size_t kContextWindows = 16;
inline constexpr int kContextNextWindow = -1;
void context_window_offer(size_t window, bool take, uint32_t* mine);
int context_window_conclude(size_t window, bool take, const uint32_t* mine,
                            const uint32_t* common, int band_error, uint32_t* context_id);
// The same over a communicator's collectives.
int context_id_agree(Comm& over, bool take, uint32_t* context_id);
void context_id_release(uint32_t context_id);
void context_ids_reset();  // WORLD's and SELF's ids in use, every other free
// The id reserved for MPI_Comm_create_group's agreements among group members.
uint32_t context_id_group_agreement();
// The id reserved for the agreements of communicators made from groups alone
// (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups: from_group.cpp).
uint32_t context_id_session_agreement();
// The id reserved for partitioned point-to-point messages (p2p/partitioned.h).
uint32_t context_id_partitioned();
// Allreduce-BAND of `words` words among the processes `members` (world ranks; this one at
// index `me`), its messages on context `ctx` addressed by world rank and tagged with `call`
// (create.cpp).
torus::Status group_band(uint32_t ctx, std::span<const int> members, int me, uint32_t call,
                         const uint32_t* mine, uint32_t* common, size_t words);

// What MPI_COMM_TYPE_SHARED compares (split_type.cpp): equal for processes that can
// share memory (same host, boot and IPC namespace).
uint64_t host_identity();

// Attributes (attr.cpp). Comm_dup: runs the copy callbacks of `from`'s attributes and
// sets those they copy on `to`. Comm_free: runs the delete callbacks (last set first) and
// removes the attributes. Both return the first callback's failure.
int comm_copy_attrs(Comm& from, Comm& to);
int comm_delete_attrs(Comm& c);

}  // namespace torus::mpi
