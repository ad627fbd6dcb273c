// General active target synchronization: MPI_Win_post / Win_start / Win_complete /
// Win_wait / Win_test. Post tells each origin of the group that its exposure epoch is open;
// Start waits for the post of each target; Complete completes the operations to every
// target, then tells each; Wait and Test consume one complete message per origin. The
// messages are counted per peer, so a post for the next epoch may arrive early.
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/comm/group.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

// The window ranks of a group's members; MPI_ERR_GROUP for an invalid group or a member
// outside the window.
int window_ranks(const Win& w, MPI_Group group, std::vector<int>* out) {
  auto g = group_get(group);
  Comm* c = comm_get(w.comm);
  if (!g || !c) return MPI_ERR_GROUP;
  out->clear();
  for (int world : g->world_ranks) {
    const auto& ranks = c->world_ranks;
    auto it = std::find(ranks.begin(), ranks.end(), world);
    if (it == ranks.end()) return MPI_ERR_GROUP;
    out->push_back(int(it - ranks.begin()));
  }
  return MPI_SUCCESS;
}

int notify(Win& w, const std::vector<int>& ranks, RmaAm kind) {
  for (int r : ranks) {
    RmaAmHdr h{};
    h.kind = kind;
    h.win_id = w.id;
    h.origin = w.rank;
    if (int e = rma_am_send(w, r, h, {})) return e;
  }
  return MPI_SUCCESS;
}

bool all_arrived(const std::vector<int>& counts, const std::vector<int>& ranks) {
  for (int r : ranks)
    if (counts[size_t(r)] == 0) return false;
  return true;
}

// Whether a peer we still wait for has failed: its message will never come.
bool one_failed(const Win& w, const std::vector<int>& counts, const std::vector<int>& ranks) {
  for (int r : ranks)
    if (counts[size_t(r)] == 0 && win_peer_failed(w, r)) return true;
  return false;
}

void consume(std::vector<int>& counts, const std::vector<int>& ranks) {
  for (int r : ranks) --counts[size_t(r)];
}

Win* lookup(MPI_Win win, const char* fn, int* err) {
  Win* w = win_get(win);
  *err = w ? MPI_SUCCESS : raise_win(nullptr, MPI_ERR_WIN, fn);
  return w;
}

constexpr int kPostAsserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;

}  // namespace
}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_post";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (assert & ~kPostAsserts) return raise_win(w, MPI_ERR_ASSERT, fn);
  std::lock_guard lock(rma_mutex());
  if (w->posted) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  std::vector<int> origins;
  if (int e = window_ranks(*w, group, &origins)) return raise_win(w, e, fn);
  // With NOCHECK the origins do not wait for this post (their start has NOCHECK too).
  if (!(assert & MPI_MODE_NOCHECK))
    if (int e = notify(*w, origins, RmaAm::Post)) return raise_win(w, e, fn);
  w->posted = true;
  w->post_group = std::move(origins);
  return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const char* fn = "MPI_Win_start";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (assert & ~MPI_MODE_NOCHECK) return raise_win(w, MPI_ERR_ASSERT, fn);
  std::unique_lock lock(rma_mutex());
  if (w->started) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  std::vector<int> targets;
  if (int e = window_ranks(*w, group, &targets)) return raise_win(w, e, fn);
  if (!(assert & MPI_MODE_NOCHECK)) {
    win_wait_until(lock, [&] {
      return all_arrived(w->posts_from, targets) || one_failed(*w, w->posts_from, targets);
    });
    if (!all_arrived(w->posts_from, targets)) return raise_win(w, MPI_ERR_PROC_ABORTED, fn);
    consume(w->posts_from, targets);
  }
  w->started = true;
  w->start_group = std::move(targets);
  return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win) {
  const char* fn = "MPI_Win_complete";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  std::unique_lock lock(rma_mutex());
  if (!w->started) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  int e = win_flush(*w, -1, lock);
  int n = notify(*w, w->start_group, RmaAm::Complete);
  w->started = false;
  w->start_group.clear();
  return check_win(w, e != MPI_SUCCESS ? e : n, fn);
}

int PMPI_Win_wait(MPI_Win win) {
  const char* fn = "MPI_Win_wait";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  std::unique_lock lock(rma_mutex());
  if (!w->posted) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  win_wait_until(lock, [&] {
    return all_arrived(w->completes_from, w->post_group) ||
           one_failed(*w, w->completes_from, w->post_group);
  });
  if (!all_arrived(w->completes_from, w->post_group)) {
    w->posted = false;  // the epoch cannot complete: it ends with the error
    w->post_group.clear();
    return raise_win(w, MPI_ERR_PROC_ABORTED, fn);
  }
  consume(w->completes_from, w->post_group);
  w->posted = false;
  w->post_group.clear();
  return MPI_SUCCESS;
}

int PMPI_Win_test(MPI_Win win, int* flag) {
  const char* fn = "MPI_Win_test";
  int err;
  Win* w = lookup(win, fn, &err);
  if (!w) return err;
  if (!flag) return raise_win(w, MPI_ERR_ARG, fn);
  std::unique_lock lock(rma_mutex());
  if (!w->posted) return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  win_progress_step(lock);
  *flag = all_arrived(w->completes_from, w->post_group);
  if (*flag) {
    consume(w->completes_from, w->post_group);
    w->posted = false;
    w->post_group.clear();
  }
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Win_post)
TORUS_MPI_ALIAS(MPI_Win_start)
TORUS_MPI_ALIAS(MPI_Win_complete)
TORUS_MPI_ALIAS(MPI_Win_wait)
TORUS_MPI_ALIAS(MPI_Win_test)

}  // extern "C"
