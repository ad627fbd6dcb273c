// User-defined error handlers: MPI_Comm_create_errhandler, MPI_Errhandler_free,
// MPI_Comm_call_errhandler and the MPI-1 names (Errhandler_create/set/get). A handler's
// function stays in its slot for the life of the process, even after MPI_Errhandler_free:
// communicators and pending requests that hold the handle go on calling it, as the standard
// wants, and a program makes only a few handlers, so none is reused.
#include <mutex>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"

using namespace torus::mpi;

namespace {

// MPICH's layout of a directly allocated errhandler handle.
constexpr unsigned kUserKind = 0x94000000u;
constexpr unsigned kMaxHandlers = 1u << 16;

struct Handler {
  MPI_Comm_errhandler_function* fn;
  // Handles the program holds: one from creation, one more per get_errhandler (which hands
  // out a reference the program frees). At 0 the handle is gone; holders keep the slot.
  int refs;
};

struct Table {
  std::mutex mutex;
  std::vector<Handler> handlers;
};

Table& table() {
  static Table t;
  return t;
}

// The slot of a user handle, or -1.
long slot_of(MPI_Errhandler eh) {
  const unsigned h = static_cast<unsigned>(eh);
  if ((h & 0xfc000000u) != kUserKind) return -1;
  const unsigned idx = h & 0x03ffffffu;
  return idx < kMaxHandlers ? long(idx) : -1;
}

bool predefined(MPI_Errhandler eh) {
  return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT;
}

}  // namespace

namespace torus::mpi {

void errhandler_retain(MPI_Errhandler eh) noexcept {
  const long idx = slot_of(eh);
  if (idx < 0) return;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  if (size_t(idx) < t.handlers.size() && t.handlers[size_t(idx)].refs > 0)
    ++t.handlers[size_t(idx)].refs;
}

bool errhandler_settable(MPI_Errhandler eh) noexcept {
  if (predefined(eh)) return true;
  const long idx = slot_of(eh);
  if (idx < 0) return false;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return size_t(idx) < t.handlers.size() && t.handlers[size_t(idx)].refs > 0;
}

MPI_Comm_errhandler_function* errhandler_function(MPI_Errhandler eh) noexcept {
  const long idx = slot_of(eh);
  if (idx < 0) return nullptr;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return size_t(idx) < t.handlers.size() ? t.handlers[size_t(idx)].fn : nullptr;
}

}  // namespace torus::mpi

extern "C" {

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  const char* name = "MPI_Comm_create_errhandler";
  if (!fn || !errhandler) return raise_error(nullptr, MPI_ERR_ARG, name);
  Table& t = table();
  std::unique_lock lock(t.mutex);
  if (t.handlers.size() >= kMaxHandlers) {
    lock.unlock();
    return raise_error(nullptr, MPI_ERR_INTERN, name);
  }
  *errhandler = static_cast<MPI_Errhandler>(kUserKind | unsigned(t.handlers.size()));
  t.handlers.push_back(Handler{fn, 1});
  return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  if (!errhandler) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Errhandler_free");
  // The predefined handlers may be "freed": the handle is reset, nothing else happens.
  if (!predefined(*errhandler)) {
    const long idx = slot_of(*errhandler);
    Table& t = table();
    std::unique_lock lock(t.mutex);
    if (idx < 0 || size_t(idx) >= t.handlers.size() || t.handlers[size_t(idx)].refs <= 0) {
      lock.unlock();
      return raise_error(nullptr, MPI_ERR_ARG, "MPI_Errhandler_free");
    }
    --t.handlers[size_t(idx)].refs;
  }
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

// Invokes the communicator's handler as an error inside MPI would; MPI_SUCCESS once a
// handler that returns has returned.
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  Comm* c = comm_get(comm);
  if (!c) return raise_error(nullptr, MPI_ERR_COMM, "MPI_Comm_call_errhandler");
  (void)raise_error(c, errorcode, "MPI_Comm_call_errhandler");
  return MPI_SUCCESS;
}

// The MPI-1 names (removed in MPI 3.0; MPICH still exports them).
int PMPI_Errhandler_create(MPI_Handler_function* fn, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(fn, errhandler);
}
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
  return PMPI_Comm_set_errhandler(comm, errhandler);
}
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return PMPI_Comm_get_errhandler(comm, errhandler);
}

TORUS_MPI_ALIAS(MPI_Comm_create_errhandler)
TORUS_MPI_ALIAS(MPI_Errhandler_free)
TORUS_MPI_ALIAS(MPI_Comm_call_errhandler)
TORUS_MPI_ALIAS(MPI_Errhandler_create)
TORUS_MPI_ALIAS(MPI_Errhandler_set)
TORUS_MPI_ALIAS(MPI_Errhandler_get)

}  // extern "C"
