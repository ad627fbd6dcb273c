// Communicator table and MPI_Comm_rank/size/dup/free/get_attr. Handles are 0x44000000 | slot (slot 0:
// WORLD, 1: SELF). Slots are atomic pointers in a fixed array so lookups need no lock.
#include "mpi_shim/lib/comm.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

#include "mpi_shim/lib/coll.h"
#include "mpi_shim/lib/errors.h"
#include "mpi_shim/lib/pmpi.h"
#include "mpi_shim/lib/runtime.h"
#include "mpi_shim/lib/tag_layout.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kHandleBase = 0x44000000;
constexpr size_t kMaxComms = kMaxContextIds / 2;

struct CommTable {
  std::array<std::atomic<Comm*>, kMaxComms> slots{};  // lock-free lookups
  std::mutex mutex;                                     // guards `owned`
  std::array<std::unique_ptr<Comm>, kMaxComms> owned;
  // The next context id this process may use. A new communicator takes the maximum of its
  // members' counters (an allreduce), so an id is never in use twice by any process that
  // could receive a message carrying it. Ids are not reused in this version.
  std::atomic<uint32_t> next_context{4};
};
CommTable g_comms;

// Called with the table's mutex held.
MPI_Comm install(std::unique_ptr<Comm> c, size_t slot) {
  c->handle = static_cast<MPI_Comm>(kHandleBase | slot);
  g_comms.slots[slot].store(c.get(), std::memory_order_release);
  g_comms.owned[slot] = std::move(c);
  return static_cast<MPI_Comm>(kHandleBase | slot);
}

void uninstall(size_t slot) {
  g_comms.slots[slot].store(nullptr, std::memory_order_release);
  g_comms.owned[slot].reset();
}

}  // namespace

void comms_init(int world_rank, int world_size) {
  std::lock_guard lock(g_comms.mutex);
  auto world = std::make_unique<Comm>();
  world->context_id = 0;
  world->rank = world_rank;
  world->size = world_size;
  for (int r = 0; r < world_size; ++r) world->world_ranks.push_back(r);
  install(std::move(world), 0);
  auto self = std::make_unique<Comm>();
  self->context_id = 2;
  self->world_ranks = {world_rank};
  install(std::move(self), 1);
}

void comms_clear() {
  std::lock_guard lock(g_comms.mutex);
  for (size_t slot = 0; slot < kMaxComms; ++slot) uninstall(slot);
}

Comm* comm_get(MPI_Comm handle) noexcept {
  uint32_t h = static_cast<uint32_t>(handle);
  if ((h & 0xffff0000u) != kHandleBase || (h & 0xffffu) >= kMaxComms) return nullptr;
  return g_comms.slots[h & 0xffffu].load(std::memory_order_acquire);
}

int comm_agree_context(Comm& parent, uint32_t* context_id) {
  int mine = static_cast<int>(g_comms.next_context.load());
  int agreed = 0;
  Status s = coll::allreduce(parent, &mine, &agreed, 1, MPI_INT, MPI_MAX);
  if (is_error(s)) return error_from_status(s);
  if (static_cast<uint32_t>(agreed) + 2 > kMaxContextIds) return MPI_ERR_INTERN;
  // Counters only grow, so a concurrent creation on another communicator cannot lower it.
  uint32_t next = static_cast<uint32_t>(agreed) + 2;
  uint32_t cur = g_comms.next_context.load();
  while (cur < next && !g_comms.next_context.compare_exchange_weak(cur, next)) {
  }
  *context_id = static_cast<uint32_t>(agreed);
  return MPI_SUCCESS;
}

int comm_install(std::unique_ptr<Comm> c, MPI_Comm* handle) {
  std::lock_guard lock(g_comms.mutex);
  for (size_t slot = 2; slot < kMaxComms; ++slot) {
    if (!g_comms.owned[slot]) {
      *handle = install(std::move(c), slot);
      return MPI_SUCCESS;
    }
  }
  return MPI_ERR_INTERN;
}

}  // namespace torus::mpi

using namespace torus::mpi;

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
  uint32_t context_id = 0;
  if (int e = comm_agree_context(*c, &context_id)) return raise_error(c, e, "MPI_Comm_dup");
  auto copy = std::make_unique<Comm>();
  copy->context_id = context_id;
  copy->rank = c->rank;
  copy->size = c->size;
  copy->world_ranks = c->world_ranks;
  copy->errhandler = c->errhandler;
  return check(c, comm_install(std::move(copy), newcomm), "MPI_Comm_dup");
}

// The predefined attributes only (no user keyvals yet); they are the same on every
// communicator, as in MPICH.
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_get_attr");
  auto& a = runtime()->attrs;
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &a.tag_ub; break;
    case MPI_HOST: value = &a.host; break;
    case MPI_IO: value = &a.io; break;
    case MPI_WTIME_IS_GLOBAL: value = &a.wtime_is_global; break;
    case MPI_APPNUM: value = &a.appnum; break;
    case MPI_UNIVERSE_SIZE: value = &a.universe_size; break;
    default: break;
  }
  *flag = value != nullptr;
  // For predefined keys the standard hands out a pointer to the value.
  if (value) *static_cast<int**>(attribute_val) = value;
  return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm* comm) {
  Comm* c = comm ? comm_get(*comm) : nullptr;
  if (!c || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise_error(c, MPI_ERR_COMM, "MPI_Comm_free");
  std::lock_guard lock(g_comms.mutex);
  uninstall(static_cast<uint32_t>(*comm) & 0xffffu);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Comm_rank)
TORUS_MPI_ALIAS(MPI_Comm_size)
TORUS_MPI_ALIAS(MPI_Comm_dup)
TORUS_MPI_ALIAS(MPI_Comm_free)
TORUS_MPI_ALIAS(MPI_Comm_get_attr)

}  // extern "C"
