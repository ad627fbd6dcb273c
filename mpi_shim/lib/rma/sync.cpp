// Synchronization of windows: MPI_Win_fence (active target), Win_lock / unlock / lock_all /
// unlock_all and the flushes (passive target), and Win_sync. A lock is a message to the
// target, which grants it from its progress in arrival order (active_messages.cpp); an unlock
// first completes every operation to the target, so the next holder sees them.
#include <atomic>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

constexpr int kFenceAsserts =
    MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

bool any_lock(const Win& w) {
  if (w.lock_all) return true;
  for (LockState l : w.locks)
    if (l != LockState::None) return true;
  return false;
}

int send_plain(Win& w, int r, RmaAm kind, int64_t aux) {
  RmaAmHdr h{};
  h.kind = kind;
  h.win_id = w.id;
  h.origin = w.rank;
  h.aux = aux;
  return rma_am_send(w, r, h, {});
}

// Asks each target for the lock and waits for every grant.
int acquire(Win& w, const std::vector<int>& targets, bool exclusive,
            RmaLock& lock) {
  for (int r : targets)
    if (int e = send_plain(w, r, RmaAm::LockReq, exclusive ? 1 : 0)) return e;
  for (int r : targets) {
    win_wait_until(lock, [&] { return w.granted[size_t(r)] != 0 || win_peer_failed(w, r); });
    if (w.granted[size_t(r)] == 0) return MPI_ERR_PROC_ABORTED;
    w.granted[size_t(r)] = 0;
  }
  return MPI_SUCCESS;
}

Win* lookup(MPI_Win win, const char* fn, int* err) {
  Win* w = win_get(win);
  *err = w ? MPI_SUCCESS : raise_win(nullptr, MPI_ERR_WIN, fn);
  return w;
}

int flush(MPI_Win win, int rank, bool all, const char* fn) {
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (!all && rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (!all && (rank < 0 || rank >= w->size)) return raise_win(w, MPI_ERR_RANK, fn);
  std::unique_lock lock(rma_mutex());
  const bool open = all ? any_lock(*w) : w->lock_all || w->locks[size_t(rank)] != LockState::None;
  if (!open) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  return check_win(w, win_flush(*w, all ? -1 : rank, lock), fn);
}

}  // namespace
}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Win_fence(int assert, MPI_Win win) {
  const char* fn = "MPI_Win_fence";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (assert & ~kFenceAsserts) return raise_win(w, MPI_ERR_ASSERT, fn);
  std::unique_lock lock(rma_mutex());
  if (any_lock(*w) || w->started || w->posted) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  int e = win_flush(*w, -1, lock);
  lock.unlock();
  // Our operations are complete at their targets; once all members are here, so are
  // everyone's at us, and none starts the next epoch's before we have begun it.
  Status s = coll::barrier(*comm_get(w->comm));
  if (e == MPI_SUCCESS && is_error(s)) e = error_from_status(s);
  lock.lock();
  w->fence_epoch = !(assert & MPI_MODE_NOSUCCEED);
  return check_win(w, e, fn);
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_lock";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
    return raise_win(w, MPI_ERR_LOCKTYPE, fn);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= w->size) return raise_win(w, MPI_ERR_RANK, fn);
  if (assert & ~MPI_MODE_NOCHECK) return raise_win(w, MPI_ERR_ASSERT, fn);
  std::unique_lock lock(rma_mutex());
  LockState& state = w->locks[size_t(rank)];
  if (w->lock_all || state != LockState::None) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  const bool exclusive = lock_type == MPI_LOCK_EXCLUSIVE;
  if (assert & MPI_MODE_NOCHECK) {
    state = LockState::NoCheck;
    return MPI_SUCCESS;
  }
  if (int e = acquire(*w, {rank}, exclusive, lock)) return raise_win(w, e, fn);
  state = exclusive ? LockState::Exclusive : LockState::Shared;
  return MPI_SUCCESS;
}

int PMPI_Win_unlock(int rank, MPI_Win win) {
  const char* fn = "MPI_Win_unlock";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= w->size) return raise_win(w, MPI_ERR_RANK, fn);
  std::unique_lock lock(rma_mutex());
  LockState& state = w->locks[size_t(rank)];
  if (state == LockState::None) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  int e = win_flush(*w, rank, lock);
  if (state != LockState::NoCheck) {
    int u = send_plain(*w, rank, RmaAm::Unlock, 0);
    if (e == MPI_SUCCESS) e = u;
  }
  state = LockState::None;
  return check_win(w, e, fn);
}

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  const char* fn = "MPI_Win_lock_all";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (assert & ~MPI_MODE_NOCHECK) return raise_win(w, MPI_ERR_ASSERT, fn);
  std::unique_lock lock(rma_mutex());
  if (any_lock(*w)) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  w->lock_all_nocheck = (assert & MPI_MODE_NOCHECK) != 0;
  if (!w->lock_all_nocheck) {
    std::vector<int> all(size_t(w->size));
    for (int r = 0; r < w->size; ++r) all[size_t(r)] = r;
    if (int e = acquire(*w, all, false, lock)) return raise_win(w, e, fn);
  }
  w->lock_all = true;
  return MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win win) {
  const char* fn = "MPI_Win_unlock_all";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  std::unique_lock lock(rma_mutex());
  if (!w->lock_all) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  int e = win_flush(*w, -1, lock);
  if (!w->lock_all_nocheck) {
    for (int r = 0; r < w->size; ++r) {
      int u = send_plain(*w, r, RmaAm::Unlock, 0);
      if (e == MPI_SUCCESS) e = u;
    }
  }
  w->lock_all = false;
  return check_win(w, e, fn);
}

// Remote completion implies local completion, so the local flushes are the same calls.
int PMPI_Win_flush(int rank, MPI_Win win) { return flush(win, rank, false, "MPI_Win_flush"); }
int PMPI_Win_flush_all(MPI_Win win) { return flush(win, 0, true, "MPI_Win_flush_all"); }
int PMPI_Win_flush_local(int rank, MPI_Win win) {
  return flush(win, rank, false, "MPI_Win_flush_local");
}
int PMPI_Win_flush_local_all(MPI_Win win) {
  return flush(win, 0, true, "MPI_Win_flush_local_all");
}

// The window's memory is the one copy (MPI_WIN_UNIFIED): a full fence orders our loads and
// stores against the transports' accesses; a progress round lets pending messages land.
int PMPI_Win_sync(MPI_Win win) {
  int err;
  Win* w = lookup(win, "MPI_Win_sync", &err);
  if (!w) return err;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::unique_lock lock(rma_mutex());
  win_progress_step(lock);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Win_fence)
TORUS_MPI_ALIAS(MPI_Win_lock)
TORUS_MPI_ALIAS(MPI_Win_unlock)
TORUS_MPI_ALIAS(MPI_Win_lock_all)
TORUS_MPI_ALIAS(MPI_Win_unlock_all)
TORUS_MPI_ALIAS(MPI_Win_flush)
TORUS_MPI_ALIAS(MPI_Win_flush_all)
TORUS_MPI_ALIAS(MPI_Win_flush_local)
TORUS_MPI_ALIAS(MPI_Win_flush_local_all)
TORUS_MPI_ALIAS(MPI_Win_sync)

}  // extern "C"
