// MPI_Buffer_attach, Buffer_detach, Bsend, Ibsend (any committed datatype, packed straight
// into the attached buffer), and the attached buffer behind them: the ranges of buffered
// messages still in flight (each holds its torus send request) and the free space between
// them (bsend_space.h). Completed sends give their range back whenever the buffer is next
// used; Buffer_detach waits for all of them.
//
// No callback runs into this file from the worker's progress, so holding its lock while
// posting a send cannot deadlock against a thread inside progress.
#include "mpi_shim/lib/p2p/bsend.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include "core/base/copy.h"
#include "core/base/log.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/bsend_space.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

namespace torus::mpi {
namespace {

struct InFlight {
  Request* req;
  size_t offset;
};

struct AttachedBuffer {
  std::mutex mutex;  // guards everything below
  bool attached = false;
  std::byte* base = nullptr;
  int size = 0;
  BsendSpace space;
  std::vector<InFlight> in_flight;
};
AttachedBuffer g_buffer;

// Gives back the ranges of the sends that completed. A buffered send's failure has no
// request left to report it on (the user's completed at the copy), so it is logged.
void reap_locked() {
  auto& v = g_buffer.in_flight;
  for (size_t i = 0; i < v.size();) {
    if (!v[i].req->completed()) {
      ++i;
      continue;
    }
    if (Status s = v[i].req->status(); is_error(s))
      TORUS_WARN("a buffered send failed after MPI_Bsend returned: %s", status_string(s));
    v[i].req->release();
    g_buffer.space.give_back(v[i].offset);
    v[i] = v.back();
    v.pop_back();
  }
}

}  // namespace

int bsend_post(const Comm& c, const void* buf, size_t count, const TypeInfo& type, int dest,
               int tag) {
  const size_t bytes = count * type.size;
  const size_t need = bytes + MPI_BSEND_OVERHEAD;
  std::unique_lock lock(g_buffer.mutex);
  if (!g_buffer.attached) return MPI_ERR_BUFFER;
  reap_locked();
  std::optional<size_t> offset = g_buffer.space.take(need);
  if (!offset) {
    // Sends that finished but were not progressed yet may hold the space: one more look.
    lock.unlock();
    runtime()->worker->progress();
    lock.lock();
    if (!g_buffer.attached) return MPI_ERR_BUFFER;
    reap_locked();
    offset = g_buffer.space.take(need);
    if (!offset) return MPI_ERR_BUFFER;
  }
  std::byte* copy = g_buffer.base + *offset;
  if (bytes && type.contiguous)
    copy_bytes(copy, static_cast<const std::byte*>(buf) + type.true_lb, bytes);
  else if (bytes)
    type_pack(buf, count, type, copy);
  Request* req = nullptr;
  Status s = post_send(c, c.context_id, copy, bytes, dest, tag, false, &req);
  if (is_error(s) || req == nullptr) {
    g_buffer.space.give_back(*offset);
    return error_from_status(s);
  }
  g_buffer.in_flight.push_back({req, *offset});
  return MPI_SUCCESS;
}

}  // namespace torus::mpi

using namespace torus::mpi;

namespace {

int buffered(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm, MPI_Request* request, const char* fn) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, dest, tag, false)) return raise_error(c, e, fn);
  if (dest != MPI_PROC_NULL) {
    if (int e = bsend_post(*c, buf, size_t(count), *type_info(datatype), dest, tag))
      return raise_error(c, e, fn);
  }
  if (request) {
    // The copy is made: the request is complete, as the standard defines Ibsend's.
    MPI_Status done;
    status_empty(&done);
    *request = request_create(nullptr, false, error_scope(*c), done);
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) {
  if (size < 0) return raise_error(nullptr, MPI_ERR_ARG, "MPI_Buffer_attach");
  if (buffer == nullptr && size > 0)
    return raise_error(nullptr, MPI_ERR_BUFFER, "MPI_Buffer_attach");
  std::lock_guard lock(g_buffer.mutex);
  if (g_buffer.attached) return raise_error(nullptr, MPI_ERR_BUFFER, "MPI_Buffer_attach");
  g_buffer.attached = true;
  g_buffer.base = static_cast<std::byte*>(buffer);
  g_buffer.size = size;
  g_buffer.space.reset(static_cast<size_t>(size));
  return MPI_SUCCESS;
}

// Blocks until every buffered message has left the buffer, then hands it back.
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  std::unique_lock lock(g_buffer.mutex);
  if (!g_buffer.attached) {
    *static_cast<void**>(buffer_addr) = nullptr;
    *size = 0;
    return MPI_SUCCESS;
  }
  PolledWait wait;
  for (;;) {
    reap_locked();
    if (g_buffer.in_flight.empty()) break;
    lock.unlock();
    wait.step();
    lock.lock();
  }
  *static_cast<void**>(buffer_addr) = g_buffer.base;
  *size = g_buffer.size;
  g_buffer.attached = false;
  g_buffer.base = nullptr;
  g_buffer.size = 0;
  g_buffer.space.reset(0);
  return MPI_SUCCESS;
}

int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return buffered(buf, count, datatype, dest, tag, comm, nullptr, "MPI_Bsend");
}

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return buffered(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend");
}

TORUS_MPI_ALIAS(MPI_Buffer_attach)
TORUS_MPI_ALIAS(MPI_Buffer_detach)
TORUS_MPI_ALIAS(MPI_Bsend)
TORUS_MPI_ALIAS(MPI_Ibsend)

}  // extern "C"
