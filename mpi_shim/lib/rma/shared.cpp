// MPI_Win_allocate_shared and MPI_Win_shared_query: one POSIX shared memory object holds
// every member's segment, back to back in rank order (the standard's default, contiguous),
// mapped by each member; the window on top is an ordinary one over the member's own
// segment, so RMA calls work on it as on any window. Members on different hosts cannot
// open the object, and then every member fails with MPI_ERR_RMA_SHARED.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/rma/setup.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"

namespace torus::mpi {
namespace {

std::atomic<unsigned> g_counter{0};

struct NameMsg {
  int error;
  char name[60];
};

// Collective over c: maps the object holding `total` bytes; *map is null when total is 0.
int map_shared(Comm& c, size_t total, void** map) {
  *map = nullptr;
  NameMsg msg{MPI_SUCCESS, {}};
  int fd = -1;
  bool created = false;
  if (c.rank == 0 && total > 0) {
    std::snprintf(msg.name, sizeof(msg.name), "/torus-win-%d-%u", int(getpid()),
                  g_counter.fetch_add(1));
    fd = shm_open(msg.name, O_CREAT | O_EXCL | O_RDWR, 0600);
    created = fd >= 0;
    // Reserved now, not at the first store into each page (SIGBUS on a full tmpfs).
    if (fd < 0 || ftruncate(fd, off_t(total)) != 0) msg.error = MPI_ERR_RMA_SHARED;
    else if (posix_fallocate(fd, 0, off_t(total)) != 0) msg.error = MPI_ERR_NO_MEM;
  }
  if (Status s = coll::bcast(c, &msg, sizeof(msg), 0); is_error(s)) {
    if (fd >= 0) close(fd);
    if (created) shm_unlink(msg.name);
    return error_from_status(s);
  }
  if (total == 0) return MPI_SUCCESS;
  int local = msg.error;
  if (local == MPI_SUCCESS && c.rank != 0) {
    fd = shm_open(msg.name, O_RDWR, 0);
    if (fd < 0) local = MPI_ERR_RMA_SHARED;
  }
  if (local == MPI_SUCCESS) {
    void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) local = MPI_ERR_RMA_SHARED;
    else *map = m;
  }
  if (fd >= 0) close(fd);
  int agreed = MPI_SUCCESS;
  Status s = coll::allreduce(c, &local, &agreed, 1, MPI_INT, MPI_MAX);
  if (created) shm_unlink(msg.name);  // every member has it open, or none will
  if (is_error(s)) agreed = error_from_status(s);
  if (agreed != MPI_SUCCESS && *map) {
    munmap(*map, total);
    *map = nullptr;
  }
  return agreed;
}

}  // namespace

void win_unmap_shared(Win& w) {
  if (w.shared_map) munmap(w.shared_map, w.shared_map_bytes);
  w.shared_map = nullptr;
}

}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void* baseptr, MPI_Win* win) {
  const char* fn = "MPI_Win_allocate_shared";
  Comm* c = comm_get_intra(comm);  // windows live on intracommunicators
  if (int e = win_check_args(c, size, disp_unit, win)) return raise_error(c, e, fn);
  if (!baseptr) return raise_error(c, MPI_ERR_ARG, fn);
  std::vector<MPI_Aint> sizes(size_t(c->size));
  if (Status s = coll::allgather(*c, &size, sizes.data(), sizeof(MPI_Aint)); is_error(s))
    return raise_error(c, error_from_status(s), fn);
  std::vector<MPI_Aint> offsets(sizes.size());
  size_t total = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    offsets[r] = MPI_Aint(total);
    total += size_t(sizes[r]);
  }
  // After the segments, each member's accumulate lock on a line of its own.
  const size_t locks_at = (total + kAccLockBytes - 1) / kAccLockBytes * kAccLockBytes;
  const size_t mapped = total == 0 ? 0 : locks_at + kAccLockBytes * sizes.size();
  void* map = nullptr;
  if (int e = map_shared(*c, mapped, &map)) return raise_error(c, e, fn);
  std::byte* base = map ? static_cast<std::byte*>(map) + offsets[size_t(c->rank)] : nullptr;
  if (int e = win_setup(*c, base, size, disp_unit, info, MPI_WIN_FLAVOR_SHARED, win)) {
    if (map) munmap(map, mapped);
    return raise_error(c, e, fn);
  }
  Win* w = win_get(*win);
  w->shared_map = map;
  w->shared_map_bytes = mapped;
  // Every member's segment is in the mapping: Put and Get to them are copies.
  for (size_t r = 0; map && r < sizes.size(); ++r) {
    auto* lock = static_cast<std::byte*>(map) + locks_at + kAccLockBytes * r;
    w->acc_lock[r] = reinterpret_cast<std::atomic<uint32_t>*>(lock);
    if (sizes[r] > 0) w->local[r] = static_cast<std::byte*>(map) + offsets[r];
  }
  w->shared_offsets = std::move(offsets);
  *static_cast<void**>(baseptr) = base;
  return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit,
                          void* baseptr) {
  const char* fn = "MPI_Win_shared_query";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (w->flavor != MPI_WIN_FLAVOR_SHARED) return raise_win(w, MPI_ERR_RMA_FLAVOR, fn);
  if (!size || !disp_unit || !baseptr) return raise_win(w, MPI_ERR_ARG, fn);
  if (rank == MPI_PROC_NULL) {
    // The lowest rank with memory (none: a zero-sized answer).
    rank = 0;
    while (rank < w->size && w->peers[size_t(rank)].size == 0) ++rank;
    if (rank == w->size) {
      *size = 0;
      *disp_unit = w->peers.empty() ? 1 : w->peers[0].disp_unit;
      *static_cast<void**>(baseptr) = nullptr;
      return MPI_SUCCESS;
    }
  }
  if (rank < 0 || rank >= w->size) return raise_win(w, MPI_ERR_RANK, fn);
  const WinPeer& p = w->peers[size_t(rank)];
  *size = MPI_Aint(p.size);
  *disp_unit = p.disp_unit;
  *static_cast<void**>(baseptr) =
      w->shared_map ? static_cast<std::byte*>(w->shared_map) + w->shared_offsets[size_t(rank)]
                    : nullptr;
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Win_allocate_shared)
TORUS_MPI_ALIAS(MPI_Win_shared_query)

}  // extern "C"
