// Communicator table and MPI_Comm_rank/size/dup/dup_with_info/free. Handles are 0x44000000 |
// slot (slot 0: WORLD, 1: SELF). Lookups go through a SlotTable and take no lock.
#include "mpi_shim/lib/comm/comm.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/slot_table.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kHandleBase = 0x44000000;
constexpr size_t kMaxComms = kMaxContextIds / 2;

struct CommTable {
  SlotTable<Comm, kMaxComms> slots;          // lock-free lookups
  std::mutex mutex;                          // guards `owned`
  std::vector<std::unique_ptr<Comm>> owned;  // by slot; grows up to kMaxComms
};
CommTable g_comms;

// Called with the table's mutex held.
MPI_Comm install(std::unique_ptr<Comm> c, size_t slot) {
  c->handle = static_cast<MPI_Comm>(kHandleBase | slot);
  if (g_comms.owned.size() <= slot) g_comms.owned.resize(slot + 1);
  g_comms.slots.set(slot, c.get());
  g_comms.owned[slot] = std::move(c);
  return static_cast<MPI_Comm>(kHandleBase | slot);
}

void uninstall(size_t slot) {
  g_comms.slots.set(slot, nullptr);
  g_comms.owned[slot].reset();
}

}  // namespace

void comms_init(int world_rank, int world_size) {
  context_ids_reset();
  std::lock_guard lock(g_comms.mutex);
  auto world = std::make_unique<Comm>();
  world->context_id = 0;
  world->rank = world_rank;
  world->size = world_size;
  world->name = "MPI_COMM_WORLD";
  for (int r = 0; r < world_size; ++r) world->world_ranks.push_back(r);
  install(std::move(world), 0);
  auto self = std::make_unique<Comm>();
  self->context_id = 2;
  self->world_ranks = {world_rank};
  self->name = "MPI_COMM_SELF";
  install(std::move(self), 1);
}

void comms_clear() {
  // MPI_Finalize frees MPI_COMM_SELF first, running its attributes' delete callbacks (the
  // standard's hook for libraries to clean up); their failures cannot be reported anywhere.
  if (Comm* self = comm_get(MPI_COMM_SELF)) (void)comm_delete_attrs(*self);
  std::lock_guard lock(g_comms.mutex);
  for (size_t slot = 0; slot < g_comms.owned.size(); ++slot) uninstall(slot);
}

Comm* comm_get(MPI_Comm handle) noexcept {
  uint32_t h = static_cast<uint32_t>(handle);
  if ((h & 0xffff0000u) != kHandleBase || (h & 0xffffu) >= kMaxComms) return nullptr;
  return g_comms.slots.get(h & 0xffffu);
}

Comm* comm_get_intra(MPI_Comm handle) noexcept {
  Comm* c = comm_get(handle);
  return c && !c->inter() ? c : nullptr;
}

int comm_install(std::unique_ptr<Comm>&& c, MPI_Comm* handle) {
  std::lock_guard lock(g_comms.mutex);
  for (size_t slot = 2; slot < kMaxComms; ++slot) {
    if (slot >= g_comms.owned.size() || !g_comms.owned[slot]) {
      *handle = install(std::move(c), slot);
      return MPI_SUCCESS;
    }
  }
  return MPI_ERR_INTERN;
}

int comm_create_from(Comm& parent, std::vector<int>* members, MPI_Comm* newcomm) {
  uint32_t context_id = 0;
  if (int e = context_id_agree(parent, members != nullptr, &context_id)) return e;
  if (!members) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const int me = parent.world_ranks[static_cast<size_t>(parent.rank)];
  auto c = std::make_unique<Comm>();
  c->context_id = context_id;
  c->size = static_cast<int>(members->size());
  c->rank = static_cast<int>(std::find(members->begin(), members->end(), me) - members->begin());
  c->world_ranks = std::move(*members);
  c->errhandler = parent.errhandler;
  int e = comm_install(std::move(c), newcomm);
  if (e != MPI_SUCCESS) context_id_release(context_id);
  return e;
}

}  // namespace torus::mpi

using namespace torus::mpi;

namespace torus::mpi {

std::unique_ptr<Comm> comm_duplicate(Comm& c, int* err) {
  auto copy = std::make_unique<Comm>();
  copy->rank = c.rank;
  copy->size = c.size;
  copy->world_ranks = c.world_ranks;
  copy->errhandler = c.errhandler;
  // A duplicate keeps the topology (MPI 4.0, 7.4.2).
  copy->cart = c.cart;
  copy->graph = c.graph;
  copy->dist_graph = c.dist_graph;
  // A failed copy callback fails the call (the standard's rule); the attributes copied so far
  // are deleted with their callbacks, as Comm_free would.
  *err = comm_copy_attrs(c, *copy);
  if (*err == MPI_SUCCESS) return copy;
  (void)comm_delete_attrs(*copy);
  return nullptr;
}

int comm_install_duplicate(std::unique_ptr<Comm> copy, uint32_t context_id,
                           MPI_Comm* newcomm) {
  copy->context_id = context_id;
  const int e = comm_install(std::move(copy), newcomm);
  if (e == MPI_SUCCESS) return e;
  (void)comm_delete_attrs(*copy);
  context_id_release(context_id);
  *newcomm = MPI_COMM_NULL;
  return e;
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_rank");
  *rank = c->rank;
  return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_size");
  *size = c->size;
  return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_dup");
  if (!newcomm) return raise_error(c, MPI_ERR_ARG, "MPI_Comm_dup");
  if (c->inter()) return check(c, intercomm_dup(*c, newcomm), "MPI_Comm_dup");
  uint32_t context_id = 0;
  if (int e = comm_agree_context(*c, &context_id)) return raise_error(c, e, "MPI_Comm_dup");
  int e = MPI_SUCCESS;
  std::unique_ptr<Comm> copy = comm_duplicate(*c, &e);
  if (copy) e = comm_install_duplicate(std::move(copy), context_id, newcomm);
  else context_id_release(context_id);
  return check(c, e, "MPI_Comm_dup");
}

// Hints in `info` change nothing here: every communicator gets the same algorithms.
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info /*info*/, MPI_Comm* newcomm) {
  return PMPI_Comm_dup(comm, newcomm);
}

int PMPI_Comm_free(MPI_Comm* comm) {
  Comm* c = comm ? comm_get(*comm) : nullptr;
  if (!c || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise_error(c, MPI_ERR_COMM, "MPI_Comm_free");
  // Delete callbacks first, while the communicator is still valid for them to use.
  if (int e = comm_delete_attrs(*c)) return raise_error(c, e, "MPI_Comm_free");
  const uint32_t context_id = c->context_id;
  const uint32_t local_id = c->inter() ? c->local->context_id : 0;
  {
    std::lock_guard lock(g_comms.mutex);
    uninstall(static_cast<uint32_t>(*comm) & 0xffffu);
  }
  context_id_release(context_id);
  if (local_id) context_id_release(local_id);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_rank)
TORUS_MPI_ALIAS(MPI_Comm_size)
TORUS_MPI_ALIAS(MPI_Comm_dup)
TORUS_MPI_ALIAS(MPI_Comm_dup_with_info)
TORUS_MPI_ALIAS(MPI_Comm_free)

}  // extern "C"
