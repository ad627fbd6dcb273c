// Windows of processes on this host, reached by load and store: MPI_Win_allocate puts each
// member's memory in a POSIX shared memory object, and the members on the same host map
// each other's, so a Put or Get to them is a copy (as Open MPI's osc/sm and MPICH's shm
// windows do) instead of a transfer. A member whose object cannot be made or mapped is
// reached by the transports as before; nothing else depends on it.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "mpi_shim/lib/coll/coll.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/rma/setup.h"

namespace torus::mpi {
namespace {

std::atomic<unsigned> g_objects{0};

}  // namespace

size_t win_local_object_bytes(size_t size) noexcept {
  return size == 0 ? 0 : (size + kAccLockBytes - 1) / kAccLockBytes * kAccLockBytes + kAccLockBytes;
}

std::atomic<uint32_t>* win_acc_lock_at(void* object, size_t size) noexcept {
  auto* at = static_cast<std::byte*>(object) + win_local_object_bytes(size) - kAccLockBytes;
  return reinterpret_cast<std::atomic<uint32_t>*>(at);
}

void* win_local_alloc(size_t size, char* name, size_t name_len, size_t* mapped) {
  *mapped = 0;
  name[0] = '\0';
  if (size == 0) return nullptr;
  char n[64];
  std::snprintf(n, sizeof(n), "/torus-win-%d-%u", int(getpid()), g_objects.fetch_add(1));
  // The window's bytes, then (on its own line) the accumulate lock; zeroed: unlocked.
  const size_t bytes = win_local_object_bytes(size);
  const int fd = shm_open(n, O_CREAT | O_EXCL | O_RDWR, 0600);
  void* m = MAP_FAILED;
  if (fd >= 0) {
    // Reserved now: a tmpfs too small for it would otherwise kill the process with SIGBUS
    // at the first store into a page it cannot back; here it falls back to heap memory.
    if (ftruncate(fd, off_t(bytes)) == 0 && posix_fallocate(fd, 0, off_t(bytes)) == 0)
      m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) shm_unlink(n);
  }
  if (m != MAP_FAILED) {
    std::snprintf(name, name_len, "%s", n);
    *mapped = bytes;
    return m;
  }
  void* heap = nullptr;
  return posix_memalign(&heap, 64, size) == 0 ? heap : nullptr;
}

void win_local_map(Win& w, Comm& wc, const std::vector<uint64_t>& hosts,
                   const std::vector<std::string>& names) {
  const uint64_t me = hosts[size_t(w.rank)];
  for (int r = 0; r < w.size; ++r) {
    const size_t size = size_t(w.peers[size_t(r)].size);
    const size_t bytes = win_local_object_bytes(size);
    if (r == w.rank || hosts[size_t(r)] != me || names[size_t(r)].empty() || bytes == 0)
      continue;
    const int fd = shm_open(names[size_t(r)].c_str(), O_RDWR, 0);
    if (fd < 0) continue;
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) continue;
    w.local[size_t(r)] = static_cast<std::byte*>(m);
    w.local_maps[size_t(r)] = bytes;
    w.acc_lock[size_t(r)] = win_acc_lock_at(m, size);
  }
  // Every member has opened what it wanted: the names can go (the mappings stay).
  (void)coll::barrier(wc);
  if (!names[size_t(w.rank)].empty()) shm_unlink(names[size_t(w.rank)].c_str());
}

void win_local_unmap(Win& w) {
  for (size_t r = 0; r < w.local_maps.size(); ++r)
    if (w.local_maps[r]) munmap(w.local[r], w.local_maps[r]);
  w.local_maps.assign(w.local_maps.size(), 0);
  w.local.assign(w.local.size(), nullptr);
  w.acc_lock.assign(w.acc_lock.size(), nullptr);
}

}  // namespace torus::mpi
