// Making and freeing windows: MPI_Win_create, Win_allocate, Win_create_dynamic (with
// Win_attach / Win_detach) and Win_free. Creation is collective: a private communicator,
// the memory registered with every one-sided transport, then one allgather of each
// member's base, size, displacement unit and key length and one of the keys.
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/rma/setup.h"
#include "mpi_shim/lib/rma/win.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {

namespace {

struct Announce {
  uint64_t base;
  uint64_t size;
  int32_t disp_unit;
  uint32_t rkey_len;
  int32_t error;  // a member that failed to register makes every member fail
  int32_t pad;
  uint64_t host;      // host_identity()
  char shm_name[48];  // the shared memory object holding the memory, or empty
};

}  // namespace

int win_setup(Comm& parent, void* base, MPI_Aint size, int disp_unit, MPI_Info info,
              int flavor, MPI_Win* handle, int local_error, const char* shm_name) {
  rma_am_install();
  std::vector<int> members = parent.world_ranks;
  MPI_Comm wcomm = MPI_COMM_NULL;
  if (int e = comm_create_from(parent, &members, &wcomm)) return e;
  Comm* wc = comm_get(wcomm);
  wc->errhandler = MPI_ERRORS_RETURN;
  wc->name = "window";
  auto w = std::make_unique<Win>();
  w->comm = wcomm;
  w->id = wc->context_id;
  w->rank = wc->rank;
  w->size = wc->size;
  w->flavor = flavor;
  w->base = base;
  w->bytes = size;
  w->disp_unit = disp_unit;
  const size_t n = size_t(w->size);
  w->locks.assign(n, LockState::None);
  w->granted.assign(n, 0);
  w->posts_from.assign(n, 0);
  w->completes_from.assign(n, 0);
  w->region_replies.assign(n, 0);
  // Everything a message handler may touch is sized before the window is installed: a
  // member that finished the exchange first may send to it while we are still in it.
  w->local.assign(n, nullptr);
  w->local_maps.assign(n, 0);
  w->acc_lock.assign(n, nullptr);
  if (*shm_name) w->acc_lock[size_t(w->rank)] = win_acc_lock_at(base, size_t(size));
  w->region_answer.assign(n, {});
  w->remote_regions.assign(n, {});
  if (info != MPI_INFO_NULL) (void)PMPI_Info_dup(info, &w->info);

  Announce mine{reinterpret_cast<uint64_t>(base), uint64_t(size), disp_unit, 0, local_error, 0,
                host_identity(), {}};
  std::snprintf(mine.shm_name, sizeof(mine.shm_name), "%s", shm_name);
  std::vector<std::byte> rkey;
  if (size > 0 && local_error == MPI_SUCCESS) {
    auto reg = runtime()->worker->mem_register(base, size_t(size), kMemRead | kMemWrite);
    if (reg) {
      w->mem = reg.value();
      rkey = w->mem->pack_rkey();
      mine.rkey_len = uint32_t(rkey.size());
    } else {
      mine.error = MPI_ERR_OTHER;
    }
  }
  Win* raw = w.get();
  // In the table before the exchange: a peer may send to it as soon as the exchange is done.
  if (int e = win_install(std::move(w), handle)) {
    if (raw->mem) runtime()->worker->mem_deregister(raw->mem);
    PMPI_Comm_free(&wcomm);
    return e;
  }
  std::vector<Announce> all(n);
  Status s = coll::allgather(*wc, &mine, all.data(), sizeof(Announce));
  std::vector<size_t> counts(n), displs(n);
  size_t total = 0;
  int error = is_error(s) ? error_from_status(s) : MPI_SUCCESS;
  for (size_t r = 0; r < n && error == MPI_SUCCESS; ++r) {
    if (all[r].error != MPI_SUCCESS) error = all[r].error;
    counts[r] = all[r].rkey_len;
    displs[r] = total;
    total += counts[r];
  }
  std::vector<std::byte> keys(total);
  if (error == MPI_SUCCESS) {
    s = coll::allgatherv(*wc, rkey.data(), keys.data(), counts.data(), displs.data());
    if (is_error(s)) error = error_from_status(s);
  }
  if (error != MPI_SUCCESS) {
    win_destroy(win_uninstall(*handle));
    *handle = MPI_WIN_NULL;
    return error;
  }
  raw->peers.resize(n);
  for (size_t r = 0; r < n; ++r) {
    raw->peers[r] = {all[r].base, all[r].size, all[r].disp_unit,
                     {keys.begin() + long(displs[r]), keys.begin() + long(displs[r] + counts[r])}};
  }
  if (flavor != MPI_WIN_FLAVOR_DYNAMIC && size > 0)
    raw->local[size_t(raw->rank)] = static_cast<std::byte*>(base);
  if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
    std::vector<uint64_t> hosts(n);
    std::vector<std::string> names(n);
    for (size_t r = 0; r < n; ++r) {
      hosts[r] = all[r].host;
      names[r] = std::string(all[r].shm_name, strnlen(all[r].shm_name, sizeof(all[r].shm_name)));
    }
    win_local_map(*raw, *wc, hosts, names);
  }
  return MPI_SUCCESS;
}

void win_destroy(std::unique_ptr<Win> w) {
  if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
  PMPI_Comm_free(&w->comm);
  win_release_memory(*w);
}

void win_release_memory(Win& w) {
  Worker* worker = runtime()->worker.get();
  if (w.mem) worker->mem_deregister(w.mem);
  w.mem = nullptr;
  for (WinRegion& r : w.attached)
    if (r.mem) worker->mem_deregister(r.mem);
  w.attached.clear();
  win_local_unmap(w);
  if (w.own_map_bytes) munmap(w.allocated, w.own_map_bytes);
  else std::free(w.allocated);
  w.allocated = nullptr;
  win_unmap_shared(w);
}

int win_check_args(Comm* c, MPI_Aint size, int disp_unit, MPI_Win* win) {
  if (!c) return MPI_ERR_COMM;
  if (!win) return MPI_ERR_ARG;
  if (size < 0) return MPI_ERR_SIZE;
  if (disp_unit <= 0) return MPI_ERR_DISP;
  return MPI_SUCCESS;
}

}  // namespace torus::mpi

using namespace torus;
using namespace torus::mpi;

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win* win) {
  const char* fn = "MPI_Win_create";
  Comm* c = comm_get_intra(comm);  // windows live on intracommunicators
  if (int e = win_check_args(c, size, disp_unit, win)) return raise_error(c, e, fn);
  return check(c, win_setup(*c, base, size, disp_unit, info, MPI_WIN_FLAVOR_CREATE, win), fn);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void* baseptr, MPI_Win* win) {
  const char* fn = "MPI_Win_allocate";
  Comm* c = comm_get_intra(comm);  // windows live on intracommunicators
  if (int e = win_check_args(c, size, disp_unit, win)) return raise_error(c, e, fn);
  if (!baseptr) return raise_error(c, MPI_ERR_ARG, fn);
  char name[48];
  size_t mapped = 0;
  void* mem = win_local_alloc(size_t(size), name, sizeof(name), &mapped);
  // Every member joins the setup even when its allocation failed, and then all fail.
  const int local = size > 0 && !mem ? MPI_ERR_NO_MEM : MPI_SUCCESS;
  if (int e = win_setup(*c, mem, mem ? size : 0, disp_unit, info, MPI_WIN_FLAVOR_ALLOCATE, win,
                        local, name)) {
    if (mapped) {
      munmap(mem, mapped);
      shm_unlink(name);
    } else {
      std::free(mem);
    }
    return raise_error(c, e, fn);
  }
  win_get(*win)->allocated = mem;
  win_get(*win)->own_map_bytes = mapped;
  *static_cast<void**>(baseptr) = mem;
  return MPI_SUCCESS;
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const char* fn = "MPI_Win_create_dynamic";
  Comm* c = comm_get_intra(comm);  // windows live on intracommunicators
  if (int e = win_check_args(c, 0, 1, win)) return raise_error(c, e, fn);
  return check(c, win_setup(*c, MPI_BOTTOM, 0, 1, info, MPI_WIN_FLAVOR_DYNAMIC, win), fn);
}

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* fn = "MPI_Win_attach";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return raise_win(w, MPI_ERR_RMA_FLAVOR, fn);
  if (size < 0) return raise_win(w, MPI_ERR_SIZE, fn);
  if (size > 0 && !base) return raise_win(w, MPI_ERR_BASE, fn);
  if (size == 0) return MPI_SUCCESS;
  std::lock_guard lock(rma_mutex());
  const uint64_t lo = reinterpret_cast<uint64_t>(base), hi = lo + uint64_t(size);
  for (const WinRegion& r : w->attached)
    if (lo < r.base + r.size && r.base < hi) return raise_win(w, MPI_ERR_RMA_ATTACH, fn);
  auto reg = runtime()->worker->mem_register(base, size_t(size), kMemRead | kMemWrite);
  if (!reg) return raise_win(w, MPI_ERR_RMA_ATTACH, fn);
  w->attached.push_back({lo, uint64_t(size), reg.value(), reg.value()->pack_rkey()});
  return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void* base) {
  const char* fn = "MPI_Win_detach";
  Win* w = win_get(win);
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return raise_win(w, MPI_ERR_RMA_FLAVOR, fn);
  std::lock_guard lock(rma_mutex());
  const uint64_t at = reinterpret_cast<uint64_t>(base);
  auto it = std::find_if(w->attached.begin(), w->attached.end(),
                         [&](const WinRegion& r) { return r.base == at; });
  if (it == w->attached.end()) return raise_win(w, MPI_ERR_ARG, fn);
  runtime()->worker->mem_deregister(it->mem);
  w->attached.erase(it);
  return MPI_SUCCESS;
}

int PMPI_Win_free(MPI_Win* win) {
  const char* fn = "MPI_Win_free";
  Win* w = win ? win_get(*win) : nullptr;
  if (!w) return raise_win(nullptr, MPI_ERR_WIN, fn);
  std::unique_lock lock(rma_mutex());
  bool passive = w->lock_all;
  for (LockState l : w->locks) passive = passive || l != LockState::None;
  if (passive || w->started || w->posted) {
    lock.unlock();
    return raise_win(w, MPI_ERR_RMA_SYNC, fn);
  }
  int e = win_flush(*w, -1, lock);
  lock.unlock();
  // Every member has finished its accesses to us, and we to them, once all are here.
  Status s = coll::barrier(*comm_get(w->comm));
  if (e == MPI_SUCCESS && is_error(s)) e = error_from_status(s);
  if (int d = win_delete_attrs(*w)) return raise_win(w, d, fn);
  win_destroy(win_uninstall(*win));
  *win = MPI_WIN_NULL;
  return e == MPI_SUCCESS ? MPI_SUCCESS : raise_error(nullptr, e, fn);
}

TORUS_MPI_ALIAS(MPI_Win_create)
TORUS_MPI_ALIAS(MPI_Win_allocate)
TORUS_MPI_ALIAS(MPI_Win_create_dynamic)
TORUS_MPI_ALIAS(MPI_Win_attach)
TORUS_MPI_ALIAS(MPI_Win_detach)
TORUS_MPI_ALIAS(MPI_Win_free)

}  // extern "C"
