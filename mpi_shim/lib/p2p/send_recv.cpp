// Point-to-point: MPI_Send, Ssend, Rsend, Recv, Isend, Issend, Irsend, Irecv, Sendrecv,
// Sendrecv_replace, Probe, Iprobe. Arguments are checked here; datatypes become bytes through
// datatype/view.h (non-contiguous ones packed or unpacked around the transfer); envelopes become
// torus tags in transfer.cpp.
#include <chrono>
#include <cstddef>
#include <vector>

#include "mpi_shim/lib/comm/comm.h"
#include "mpi_shim/lib/datatype/datatype.h"
#include "mpi_shim/lib/datatype/view.h"
#include "mpi_shim/lib/p2p/args.h"
#include "mpi_shim/lib/p2p/tag_layout.h"
#include "mpi_shim/lib/p2p/transfer.h"
#include "mpi_shim/lib/request/request.h"
#include "mpi_shim/lib/request/staged.h"
#include "mpi_shim/lib/request/status.h"
#include "mpi_shim/lib/runtime/errors.h"
#include "mpi_shim/lib/runtime/pmpi.h"
#include "mpi_shim/lib/runtime/state.h"

using namespace torus::mpi;
using torus::RecvInfo;
using torus::Request;
using torus::Status;

namespace torus::mpi {

int p2p_check(const Comm* c, int count, MPI_Datatype type, int peer, int tag, bool receiving,
              size_t* bytes) {
  if (!c) return MPI_ERR_COMM;
  if (count < 0) return MPI_ERR_COUNT;
  size_t size = type_size(type);
  if (size == 0) return MPI_ERR_TYPE;
  *bytes = size * static_cast<size_t>(count);
  return p2p_check_envelope(c, peer, tag, receiving);
}

int p2p_check_typed(const Comm* c, int count, MPI_Datatype type, int peer, int tag,
                    bool receiving) {
  if (!c) return MPI_ERR_COMM;
  size_t bytes = 0;
  if (int e = type_bytes(type, count, &bytes)) return e;
  return p2p_check_envelope(c, peer, tag, receiving);
}

int p2p_check_resolved(const Comm* c, int count, MPI_Datatype type, int peer, int tag,
                       bool receiving, const TypeInfo** resolved) {
  if (!c) return MPI_ERR_COMM;
  // The checks and their order are type_bytes's.
  const TypeInfo* t = type_info(type);
  if (t == nullptr || !t->committed.load(std::memory_order_acquire)) return MPI_ERR_TYPE;
  if (count < 0) return MPI_ERR_COUNT;
  if (int e = p2p_check_envelope(c, peer, tag, receiving)) return e;
  *resolved = t;
  return MPI_SUCCESS;
}

int p2p_check_envelope(const Comm* c, int peer, int tag, bool receiving) {
  if (tag > kTagUb || (tag < 0 && !(receiving && tag == MPI_ANY_TAG))) return MPI_ERR_TAG;
  if (peer != MPI_PROC_NULL && (peer >= c->remote_size() || (peer < 0 && !(receiving &&
                                                                  peer == MPI_ANY_SOURCE))))
    return MPI_ERR_RANK;
  return MPI_SUCCESS;
}

void status_from_recv(MPI_Status* st, const RecvInfo& info, int code) {
  status_set(st, tag_source(info.tag), tag_user(info.tag), info.length, code);
}

}  // namespace torus::mpi

namespace {

int do_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
            bool sync, const char* fn) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, type, dest, tag, false)) return raise_error(c, e, fn);
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  SendView v;
  if (int e = v.init(buf, count, type)) return raise_error(c, e, fn);
  return check(
      c, error_from_status(send_blocking(*c, c->context_id, v.data(), v.bytes(), dest, tag, sync)),
      fn);
}

int do_isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             bool sync, MPI_Request* request, const char* fn) {
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  if (int e = p2p_check_resolved(c, count, type, dest, tag, false, &t))
    return raise_error(c, e, fn);
  MPI_Status done{};
  status_empty(&done);
  if (dest == MPI_PROC_NULL) {
    *request = request_create(nullptr, false, error_scope(*c), done);
    return MPI_SUCCESS;
  }
  SendView v;
  if (int e = v.init_typed(buf, static_cast<size_t>(count), *t)) return raise_error(c, e, fn);
  Request* req = nullptr;
  Status s = post_send(*c, c->context_id, v.data(), v.bytes(), dest, tag, sync, &req);
  if (torus::is_error(s)) return raise_error(c, error_from_status(s), fn);
  *request = v.staged() ? request_create_op(std::make_unique<StagedSend>(std::move(v), req),
                                            error_scope(*c))
                        : request_create(req, false, error_scope(*c), done);
  return MPI_SUCCESS;
}

// Blocking probe: progress until a match, spinning first, then sleeping between events.
bool probe_once(const Comm& c, int source, int tag, RecvInfo* info) {
  const bool any_source = source == MPI_ANY_SOURCE;
  const bool any_tag = tag == MPI_ANY_TAG;
  return runtime()->worker->tag_probe(
      make_tag(c.context_id, any_source ? 0 : source, any_tag ? 0 : tag),
      recv_mask(any_source, any_tag), info);
}

}  // namespace

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, false, "MPI_Send");
}

int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, true, "MPI_Ssend");
}

// Ready mode only promises that the receive is posted; a standard send is always correct.
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return do_send(buf, count, datatype, dest, tag, comm, false, "MPI_Rsend");
}

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, source, tag, true))
    return raise_error(c, e, "MPI_Recv");
  if (source == MPI_PROC_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  RecvView v;
  if (int e = v.init(buf, count, datatype)) return raise_error(c, e, "MPI_Recv");
  RecvInfo info;
  int code = error_from_status(
      recv_blocking(*c, c->context_id, v.data(), v.bytes(), source, tag, &info));
  if (code == MPI_SUCCESS || code == MPI_ERR_TRUNCATE) v.finish(info.length);
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Recv");
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return do_isend(buf, count, datatype, dest, tag, comm, false, request, "MPI_Isend");
}

int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return do_isend(buf, count, datatype, dest, tag, comm, true, request, "MPI_Issend");
}

// Ready mode promises a posted receive; a standard send keeps that promise's meaning.
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return do_isend(buf, count, datatype, dest, tag, comm, false, request, "MPI_Irsend");
}

int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  Comm* c = comm_get(comm);
  const TypeInfo* t = nullptr;
  if (int e = p2p_check_resolved(c, count, datatype, source, tag, true, &t))
    return raise_error(c, e, "MPI_Irecv");
  MPI_Status done{};
  status_empty(&done);
  if (source == MPI_PROC_NULL) {
    *request = request_create(nullptr, true, error_scope(*c), done);
    return MPI_SUCCESS;
  }
  RecvView v;
  if (int e = v.init_resolved(buf, static_cast<size_t>(count), datatype, *t))
    return raise_error(c, e, "MPI_Irecv");
  Request* req = nullptr;
  Status s = post_recv(*c, c->context_id, v.data(), v.bytes(), source, tag, &req);
  if (torus::is_error(s)) return raise_error(c, error_from_status(s), "MPI_Irecv");
  *request = v.staged() ? request_create_op(std::make_unique<StagedRecv>(std::move(v), req),
                                            error_scope(*c))
                        : request_create(req, true, error_scope(*c), done);
  return MPI_SUCCESS;
}

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, sendcount, sendtype, dest, sendtag, false))
    return raise_error(c, e, "MPI_Sendrecv");
  if (int e = p2p_check_typed(c, recvcount, recvtype, source, recvtag, true))
    return raise_error(c, e, "MPI_Sendrecv");
  if (dest == MPI_PROC_NULL || source == MPI_PROC_NULL) {
    // One side only: the blocking call of that side does the work.
    int code = dest == MPI_PROC_NULL
                   ? PMPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status)
                   : PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (source == MPI_PROC_NULL) status_empty(status);
    return code;
  }
  SendView sv;
  RecvView rv;
  if (int e = sv.init(sendbuf, sendcount, sendtype)) return raise_error(c, e, "MPI_Sendrecv");
  if (int e = rv.init(recvbuf, recvcount, recvtype)) return raise_error(c, e, "MPI_Sendrecv");
  RecvInfo info;
  int code = error_from_status(sendrecv_blocking(*c, c->context_id, sv.data(), sv.bytes(), dest,
                                                 sendtag, rv.data(), rv.bytes(), source,
                                                 recvtag, &info));
  if (code == MPI_SUCCESS || code == MPI_ERR_TRUNCATE) rv.finish(info.length);
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Sendrecv");
}

// The message to send is copied out first: the receive lands in the same buffer and may
// overwrite it before the send has left.
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  if (int e = p2p_check_typed(c, count, datatype, dest, sendtag, false))
    return raise_error(c, e, "MPI_Sendrecv_replace");
  if (int e = p2p_check_typed(c, count, datatype, source, recvtag, true))
    return raise_error(c, e, "MPI_Sendrecv_replace");
  if (dest == MPI_PROC_NULL || source == MPI_PROC_NULL)  // one side only: no copy needed
    return PMPI_Sendrecv(buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                         recvtag, comm, status);
  // The outgoing data is packed into its own buffer (always: a dense type's bytes would be
  // overwritten by the receive), the incoming data lands in a view of buf.
  size_t bytes = 0;
  (void)type_bytes(datatype, count, &bytes);
  std::vector<std::byte> copy(bytes);
  type_pack(buf, static_cast<size_t>(count), datatype, copy.data());
  RecvView rv;
  if (int e = rv.init(buf, count, datatype)) return raise_error(c, e, "MPI_Sendrecv_replace");
  RecvInfo info;
  int code = error_from_status(sendrecv_blocking(*c, c->context_id, copy.data(), bytes, dest,
                                                 sendtag, rv.data(), rv.bytes(), source,
                                                 recvtag, &info));
  if (code == MPI_SUCCESS || code == MPI_ERR_TRUNCATE) rv.finish(info.length);
  status_from_recv(status, info, code);
  return check(c, code, "MPI_Sendrecv_replace");
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, 0, MPI_BYTE, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Iprobe");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    status_empty(status);
    return MPI_SUCCESS;
  }
  RecvInfo info;
  if (!probe_once(*c, source, tag, &info)) {
    runtime()->worker->progress();
    if (!probe_once(*c, source, tag, &info)) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  Comm* c = comm_get(comm);
  size_t bytes = 0;
  if (int e = p2p_check(c, 0, MPI_BYTE, source, tag, true, &bytes))
    return raise_error(c, e, "MPI_Probe");
  if (source == MPI_PROC_NULL) {
    status_empty(status);
    return MPI_SUCCESS;
  }
  PolledWait wait;
  RecvInfo info;
  while (!probe_once(*c, source, tag, &info)) wait.step();
  status_from_recv(status, info, MPI_SUCCESS);
  return MPI_SUCCESS;
}

TORUS_MPI_ALIAS(MPI_Send)
TORUS_MPI_ALIAS(MPI_Ssend)
TORUS_MPI_ALIAS(MPI_Recv)
TORUS_MPI_ALIAS(MPI_Rsend)
TORUS_MPI_ALIAS(MPI_Isend)
TORUS_MPI_ALIAS(MPI_Issend)
TORUS_MPI_ALIAS(MPI_Irsend)
TORUS_MPI_ALIAS(MPI_Irecv)
TORUS_MPI_ALIAS(MPI_Sendrecv)
TORUS_MPI_ALIAS(MPI_Sendrecv_replace)
TORUS_MPI_ALIAS(MPI_Iprobe)
TORUS_MPI_ALIAS(MPI_Probe)

}  // extern "C"
