// The window table (handles are MPICH's direct window handles, 0xa0000000 | slot), the
// windows' error handlers, names, groups and info, and the waits every synchronization
// call shares.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/rma/setup.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/slot_table.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

constexpr uint32_t kHandleBase = 0xa0000000u;
constexpr uint32_t kHandleMask = 0xfc000000u;
constexpr size_t kMaxWins = 1u << 14;

struct WinTable {
  // Lookups read `fast` without a lock (every RMA call starts with one); the rest is
  // guarded by rma_mutex.
  SlotTable<Win, kMaxWins> fast;
  std::vector<std::unique_ptr<Win>> slots;
  std::unordered_map<uint32_t, Win*> by_id;
};
WinTable g_wins;

}  // namespace

RmaMutex& rma_mutex() noexcept {
  static RmaMutex m;
  return m;
}

void RmaMutex::lock_threaded() {
  m_.lock();
  ++depth_;
}

bool RmaMutex::try_lock_threaded() {
  if (!m_.try_lock()) return false;
  ++depth_;
  return true;
}

void RmaMutex::unlock_threaded() {
  if (depth_ > 1) {
    --depth_;
    m_.unlock();
    return;
  }
  for (;;) {
    rma_inbox_drain();
    depth_ = 0;
    m_.unlock();
    // A message queued after the drain but before the release found the lock taken: take
    // it back for that message unless its handler thread got the lock first.
    if (rma_inbox_empty() || !m_.try_lock()) return;
    depth_ = 1;
  }
}

Win* win_get(MPI_Win handle) noexcept {
  const uint32_t h = static_cast<uint32_t>(handle);
  if ((h & kHandleMask) != kHandleBase) return nullptr;
  const size_t slot = h & ~kHandleMask;
  return slot < kMaxWins ? g_wins.fast.get(slot) : nullptr;
}

Win* win_by_id(uint32_t id) noexcept {
  std::lock_guard lock(rma_mutex());
  auto it = g_wins.by_id.find(id);
  return it == g_wins.by_id.end() ? nullptr : it->second;
}

int win_install(std::unique_ptr<Win> w, MPI_Win* handle) {
  std::lock_guard lock(rma_mutex());
  auto free_slot = std::find(g_wins.slots.begin(), g_wins.slots.end(), nullptr);
  const size_t slot = size_t(free_slot - g_wins.slots.begin());
  if (slot >= kMaxWins) return MPI_ERR_INTERN;
  if (free_slot == g_wins.slots.end()) g_wins.slots.emplace_back();
  w->handle = static_cast<MPI_Win>(kHandleBase | slot);
  *handle = w->handle;
  g_wins.by_id[w->id] = w.get();
  g_wins.fast.set(slot, w.get());
  g_wins.slots[slot] = std::move(w);
  return MPI_SUCCESS;
}

std::unique_ptr<Win> win_uninstall(MPI_Win handle) {
  std::lock_guard lock(rma_mutex());
  const size_t slot = static_cast<uint32_t>(handle) & ~kHandleMask;
  std::unique_ptr<Win> w = std::move(g_wins.slots.at(slot));
  g_wins.fast.set(slot, nullptr);
  g_wins.by_id.erase(w->id);
  return w;
}

void wins_clear() {
  std::lock_guard lock(rma_mutex());
  for (auto& w : g_wins.slots) {
    if (!w) continue;
    for (RmaOpRef& op : w->ops) op->poll();
    w->ops.clear();
    w->by_id.clear();
    win_release_memory(*w);
    w.reset();
  }
  for (size_t slot = 0; slot < g_wins.slots.size(); ++slot) g_wins.fast.set(slot, nullptr);
  g_wins.slots.clear();
  g_wins.by_id.clear();
}

ErrorScope win_error_scope(const Win& w) {
  return ErrorScope{w.errhandler, MPI_COMM_WORLD, w.handle};
}

int raise_win(Win* w, int code, const char* fn) {
  if (!w) return raise_error(nullptr, code, fn);
  return raise_in_scope(win_error_scope(*w), code, fn);
}

Endpoint* win_endpoint(const Win& w, int r) {
  const int world = win_world_rank(w, r);
  return world >= 0 ? endpoint_to(world) : nullptr;
}

int win_world_rank(const Win& w, int r) {
  Comm* c = comm_get(w.comm);
  return c ? c->world_ranks[size_t(r)] : -1;
}

bool win_peer_failed(const Win& w, int r) {
  const int world = win_world_rank(w, r);
  return world >= 0 && peer_failed(world);
}

int rma_error(Status s) noexcept {
  if (s == Status::AccessDenied) return MPI_ERR_RMA_RANGE;
  return error_from_status(s);
}

bool win_can_access(const Win& w, int r) noexcept {
  if (w.fence_epoch || w.lock_all || w.locks[size_t(r)] != LockState::None) return true;
  return w.started && std::find(w.start_group.begin(), w.start_group.end(), r) !=
                          w.start_group.end();
}

void win_progress_step(RmaLock& lock) {
  lock.unlock();
  runtime()->worker->progress();
  lock.lock();
}

void win_wait_step(RmaLock& lock, PolledWait& wait) {
  lock.unlock();
  wait.step();
  lock.lock();
}

int win_flush(Win& w, int r, RmaLock& lock) {
  int first = MPI_SUCCESS;
  auto pending = [&] {
    bool any = false;
    std::erase_if(w.ops, [&](const RmaOpRef& op) {
      if (r >= 0 && op->target != r) return false;
      if (!op->poll()) {
        any = true;
        return false;
      }
      if (first == MPI_SUCCESS) first = op->error;
      return true;
    });
    return any;
  };
  win_wait_until(lock, [&] { return !pending(); });
  // Copies into mapped windows are complete too: order them before what follows.
  std::atomic_thread_fence(std::memory_order_release);
  // A dynamic window's view of the targets' regions lasts one epoch or flush.
  if (w.flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    if (r >= 0) w.remote_regions[size_t(r)].clear();
    else for (auto& v : w.remote_regions) v.clear();
  }
  return first;
}

uint32_t win_track(Win& w, const RmaOpRef& op) {
  uint32_t id = w.next_op_id++;
  if (id == 0) id = w.next_op_id++;
  w.by_id[id] = op;
  return id;
}

}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_set_errhandler");
  if (!errhandler_settable(errhandler))
    return raise_win(w, MPI_ERR_ARG, "MPI_Win_set_errhandler");
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_get_errhandler");
  if (!errhandler) return raise_win(w, MPI_ERR_ARG, "MPI_Win_get_errhandler");
  *errhandler = w->errhandler;
  errhandler_retain(*errhandler);
  return MPI_SUCCESS;
}

// Window and communicator handlers share one table: their functions differ only in the
// handle type, and both handles are ints.
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* fn, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(fn),
                                     errhandler);
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_call_errhandler");
  (void)raise_win(w, errorcode, "MPI_Win_call_errhandler");
  return MPI_SUCCESS;
}

int PMPI_Win_set_name(MPI_Win win, const char* name) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_set_name");
  if (!name) return raise_win(w, MPI_ERR_ARG, "MPI_Win_set_name");
  std::lock_guard lock(rma_mutex());
  w->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char* name, int* resultlen) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_get_name");
  if (!name || !resultlen) return raise_win(w, MPI_ERR_ARG, "MPI_Win_get_name");
  std::lock_guard lock(rma_mutex());
  std::memcpy(name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_get_group");
  if (!group) return raise_win(w, MPI_ERR_ARG, "MPI_Win_get_group");
  return check_win(w, PMPI_Comm_group(w->comm, group), "MPI_Win_get_group");
}

// Hints change nothing here; the window keeps what it was given so Win_get_info reports it.
int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_set_info");
  if (info == MPI_INFO_NULL) return raise_win(w, MPI_ERR_INFO, "MPI_Win_set_info");
  MPI_Info copy = MPI_INFO_NULL;
  if (int e = PMPI_Info_dup(info, &copy)) return raise_win(w, e, "MPI_Win_set_info");
  std::lock_guard lock(rma_mutex());
  if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
  w->info = copy;
  return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, "MPI_Win_get_info");
  if (!info_used) return raise_win(w, MPI_ERR_ARG, "MPI_Win_get_info");
  std::lock_guard lock(rma_mutex());
  int e = w->info != MPI_INFO_NULL ? PMPI_Info_dup(w->info, info_used) : PMPI_Info_create(info_used);
  return check_win(w, e, "MPI_Win_get_info");
}

TORUS_MPI_ALIAS(MPI_Win_set_errhandler)
TORUS_MPI_ALIAS(MPI_Win_get_errhandler)
TORUS_MPI_ALIAS(MPI_Win_create_errhandler)
TORUS_MPI_ALIAS(MPI_Win_call_errhandler)
TORUS_MPI_ALIAS(MPI_Win_set_name)
TORUS_MPI_ALIAS(MPI_Win_get_name)
TORUS_MPI_ALIAS(MPI_Win_get_group)
TORUS_MPI_ALIAS(MPI_Win_set_info)
TORUS_MPI_ALIAS(MPI_Win_get_info)

}  // extern "C"
