// The steps of making and freeing a window that the creating calls share (create.cpp,
// shared.cpp, attr.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi_shim/include/mpi.h"
#include "mpi_shim/lib/rma/win.h"

namespace torus::mpi {

// Collective over `parent`: a window on [base, base + size) installed under *handle. A
// member whose own preparation failed passes local_error, and every member then fails with
// it (none is left waiting for the others). Returns an MPI error code.
// shm_name: the POSIX shared memory object holding base (win_local_alloc), or empty.
int win_setup(Comm& parent, void* base, MPI_Aint size, int disp_unit, MPI_Info info,
              int flavor, MPI_Win* handle, int local_error = MPI_SUCCESS,
              const char* shm_name = "");
// Releases what a window holds (info, communicator, then win_release_memory); local.
void win_destroy(std::unique_ptr<Win> w);
// Its registrations, mappings and memory (also at MPI_Finalize for windows left open).
void win_release_memory(Win& w);
void win_unmap_shared(Win& w);
// Direct access within the host (local.cpp). Win_allocate's memory: a shared memory
// object that members on this host can map, its name in `name` and *mapped its size; heap
// memory (*mapped 0) when that fails; nullptr when size is 0 or nothing could be had.
void* win_local_alloc(size_t size, char* name, size_t name_len, size_t* mapped);
// Such an object's bytes for a window of `size` (its accumulate lock on a line of its own
// after the window), and where the lock sits.
inline constexpr size_t kAccLockBytes = 64;
size_t win_local_object_bytes(size_t size) noexcept;
std::atomic<uint32_t>* win_acc_lock_at(void* object, size_t size) noexcept;
// Collective over the window's communicator: maps the objects of the members on this host
// (hosts, names: every member's), then each owner unlinks its name.
void win_local_map(Win& w, Comm& wc, const std::vector<uint64_t>& hosts,
                   const std::vector<std::string>& names);
void win_local_unmap(Win& w);

// The creating calls' argument checks; an MPI error code.
int win_check_args(Comm* c, MPI_Aint size, int disp_unit, MPI_Win* win);
// Runs the delete callbacks of the window's attributes (last set first); the first
// failure's code.
int win_delete_attrs(Win& w);

}  // namespace torus::mpi
