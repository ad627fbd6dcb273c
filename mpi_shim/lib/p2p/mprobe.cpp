// Matched probe: MPI_Mprobe, Improbe, Mrecv, Imrecv (any committed datatype: a non-dense one
// is received into a staging area and unpacked, datatype/view.h). A matched probe takes the
// message off torus's unexpected queue (Worker::tag_probe_remove), so no other receive, of
// this thread or another, can get it; the MPI_Message handle holds it until Mrecv/Imrecv
// receives it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/base/log.h"
#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/staged.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;
using torus::Message;
using torus::RecvInfo;
using torus::Request;
using torus::Status;

namespace {

// MPICH's messages are requests (kind bits 0x2c in MPI_MESSAGE_NULL); ours are told apart
// from MPI_Request handles (0xac...) by the top byte.
constexpr uint32_t kMessageBase = 0xec000000u;

struct Held {
  Message* msg = nullptr;  // nullptr: the entry is free
  MPI_Comm comm = MPI_COMM_NULL;
};

// Messages between a matched probe and their receive: few at a time, so a vector and a lock.
struct MessageTable {
  std::mutex mutex;
  std::vector<Held> entries;
  std::vector<uint32_t> free_list;
};
MessageTable g_messages;

MPI_Message message_add(Message* msg, MPI_Comm comm) {
  std::lock_guard lock(g_messages.mutex);
  uint32_t idx;
  if (!g_messages.free_list.empty()) {
    idx = g_messages.free_list.back();
    g_messages.free_list.pop_back();
  } else {
    idx = static_cast<uint32_t>(g_messages.entries.size());
    TORUS_ASSERT(idx < (1u << 24));
    g_messages.entries.emplace_back();
  }
  g_messages.entries[idx] = {msg, comm};
  return static_cast<MPI_Message>(kMessageBase | idx);
}

// Removes a held message from the table; false for a handle that holds none.
bool message_take(MPI_Message handle, Held* out) {
  const uint32_t v = static_cast<uint32_t>(handle);
  if ((v & 0xff000000u) != kMessageBase) return false;
  const uint32_t idx = v & 0xffffffu;
  std::lock_guard lock(g_messages.mutex);
  if (idx >= g_messages.entries.size() || g_messages.entries[idx].msg == nullptr) return false;
  *out = g_messages.entries[idx];
  g_messages.entries[idx] = Held{};
  g_messages.free_list.push_back(idx);
  return true;
}

Message* probe_remove(const Comm& c, int source, int tag, RecvInfo* info) {
  const bool any_source = source == MPI_ANY_SOURCE;
  const bool any_tag = tag == MPI_ANY_TAG;
  return runtime()->worker->tag_probe_remove(
      make_tag(c.context_id, any_source ? 0 : source, any_tag ? 0 : tag),
      recv_mask(any_source, any_tag), info);
}

// Checks of Mprobe/Improbe; MPI_PROC_NULL finds the "no process" message at once.
int probe_args(Comm* c, int source, int tag, MPI_Message* message, MPI_Status* status,
               bool* proc_null, const char* fn) {
  size_t bytes = 0;
  if (int e = p2p_check(c, 0, MPI_BYTE, source, tag, true, &bytes)) return raise_error(c, e, fn);
  if (message == nullptr) return raise_error(c, MPI_ERR_ARG, fn);
  *proc_null = source == MPI_PROC_NULL;
  if (*proc_null) {
    *message = MPI_MESSAGE_NO_PROC;
    status_empty(status);
  }
  return MPI_SUCCESS;
}

// Checks of Mrecv/Imrecv, then takes the message out of *message (which becomes
// MPI_MESSAGE_NULL). *no_proc: it was MPI_MESSAGE_NO_PROC, nothing to receive.
int recv_args(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, Held* held,
              RecvView* view, bool* no_proc, const char* fn) {
  if (message == nullptr) return raise_error(nullptr, MPI_ERR_ARG, fn);
  *no_proc = *message == MPI_MESSAGE_NO_PROC;
  Comm* c = nullptr;
  if (!*no_proc) {
    const uint32_t v = static_cast<uint32_t>(*message);
    const uint32_t idx = v & 0xffffffu;
    std::lock_guard lock(g_messages.mutex);
    if ((v & 0xff000000u) != kMessageBase || idx >= g_messages.entries.size() ||
        g_messages.entries[idx].msg == nullptr)
      return raise_error(nullptr, MPI_ERR_REQUEST, fn);
    c = comm_get(g_messages.entries[idx].comm);
  }
  // The argument checks come before the message is taken, so a bad call leaves it held.
  if (int e = view->init(buf, count, datatype)) return raise_error(c, e, fn);
  if (!*no_proc && !message_take(*message, held)) return raise_error(c, MPI_ERR_REQUEST, fn);
  *message = MPI_MESSAGE_NULL;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  Comm* c = comm_get(comm);
  bool proc_null = false;
  if (int e = probe_args(c, source, tag, message, status, &proc_null, "MPI_Mprobe")) return e;
  if (proc_null) return MPI_SUCCESS;
  PolledWait wait;
  RecvInfo info;
  Message* msg;
  while ((msg = probe_remove(*c, source, tag, &info)) == nullptr) wait.step();
  *message = message_add(msg, comm);
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                 MPI_Status* status) {
  Comm* c = comm_get(comm);
  bool proc_null = false;
  if (int e = probe_args(c, source, tag, message, status, &proc_null, "MPI_Improbe")) return e;
  *flag = 1;
  if (proc_null) return MPI_SUCCESS;
  RecvInfo info;
  Message* msg = probe_remove(*c, source, tag, &info);
  if (msg == nullptr) {
    runtime()->worker->progress();
    msg = probe_remove(*c, source, tag, &info);
  }
  if (msg == nullptr) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *message = message_add(msg, comm);
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Status* status) {
  Held held;
  RecvView view;
  bool no_proc = false;
  if (int e = recv_args(buf, count, datatype, message, &held, &view, &no_proc, "MPI_Mrecv"))
    return e;
  if (no_proc) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  Request* req = nullptr;
  Status s = runtime()->worker->tag_msg_recv(held.msg, view.data(), view.bytes(), &req);
  RecvInfo info;
  if (!torus::is_error(s) && req) {
    s = wait_for(req);
    info = req->info();
    req->release();
  }
  const int code = error_from_status(s);
  if (code == MPI_SUCCESS || code == MPI_ERR_TRUNCATE) view.finish(info.length);
  status_from_recv(status, info, code);
  return check(comm_get(held.comm), code, "MPI_Mrecv");
}

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
  Held held;
  RecvView view;
  bool no_proc = false;
  if (int e = recv_args(buf, count, datatype, message, &held, &view, &no_proc, "MPI_Imrecv"))
    return e;
  MPI_Status done;
  status_empty(&done);
  Comm* c = comm_get(held.comm);
  const ErrorScope eh = error_scope(c);
  Request* req = nullptr;
  if (!no_proc) {
    Status s = runtime()->worker->tag_msg_recv(held.msg, view.data(), view.bytes(), &req);
    if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Imrecv");
  }
  if (req && view.staged()) {
    *request = request_create_op(std::make_unique<StagedRecv>(std::move(view), req), eh);
    return MPI_SUCCESS;
  }
  *request = request_create(req, true, eh, done);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Mprobe)
TORUS_MPI_ALIAS(MPI_Improbe)
TORUS_MPI_ALIAS(MPI_Mrecv)
TORUS_MPI_ALIAS(MPI_Imrecv)

}  // extern "C"
